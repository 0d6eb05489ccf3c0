#include <tbb/task_group.h>

#include "nqueens.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::nqueens {
namespace {

long count(int n, int row, board queens) {
  if (row == n) {
    return 1;
  }
  column_counts parts{};
  tbb::task_group group;
  for (int column = 0; column < n; ++column) {
    queens[static_cast<std::size_t>(row)] = static_cast<std::uint8_t>(column);
    if (safe(queens, row)) {
      group.run([&parts, n, row, column, queens] {
        parts[static_cast<std::size_t>(column)] = count(n, row + 1, queens);
      });
    }
  }
  group.wait();
  return total_of(parts, n);
}

const implementation_registrar registrar{"nqueens", "tbb", run_on_team<tbb_team, count>};

}  // namespace
}  // namespace fjb::nqueens
