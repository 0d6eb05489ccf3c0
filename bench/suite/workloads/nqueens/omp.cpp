#include "nqueens.hpp"
#include "teams/omp_team.hpp"

namespace fjb::nqueens {
namespace {

long count(int n, int row, board queens) {
  if (row == n) {
    return 1;
  }
  column_counts parts{};
  for (int column = 0; column < n; ++column) {
    queens[static_cast<std::size_t>(row)] = static_cast<std::uint8_t>(column);
    if (safe(queens, row)) {
#pragma omp task shared(parts) firstprivate(queens)
      parts[static_cast<std::size_t>(column)] = count(n, row + 1, queens);
    }
  }
#pragma omp taskwait
  return total_of(parts, n);
}

const implementation_registrar registrar{"nqueens", "omp", run_on_team<omp_team, count>};

}  // namespace
}  // namespace fjb::nqueens
