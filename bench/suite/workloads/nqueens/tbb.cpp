#include <tbb/task_group.h>

#include "nqueens.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::nqueens {
namespace {

long count(int n, int row, board queens) {
  if (row == n) {
    return 1;
  }
  std::array<long, largest_board> parts{};
  tbb::task_group group;
  for (int column = 0; column < n; ++column) {
    queens[static_cast<std::size_t>(row)] = static_cast<char>(column);
    if (safe(queens, row)) {
      group.run([&parts, n, row, column, queens] {
        parts[static_cast<std::size_t>(column)] = count(n, row + 1, queens);
      });
    }
  }
  group.wait();
  long total = 0;
  for (int column = 0; column < n; ++column) {
    total += parts[static_cast<std::size_t>(column)];
  }
  return total;
}

run_result run(const run_request& request) {
  const int n = board_size(request.size);
  tbb_team team(request.workers);
  long answer = 0;
  const double seconds = team.time([&] { answer = count(n, 0, board{}); });
  verify(n, answer);
  return {seconds};
}

const implementation_registrar registrar{"nqueens", "tbb", run};

}  // namespace
}  // namespace fjb::nqueens
