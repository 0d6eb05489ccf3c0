#include "nqueens.hpp"
#include "teams/omp_team.hpp"

namespace fjb::nqueens {
namespace {

long count(int n, int row, board queens) {
  if (row == n) {
    return 1;
  }
  std::array<long, largest_board> parts{};
  for (int column = 0; column < n; ++column) {
    queens[static_cast<std::size_t>(row)] = static_cast<char>(column);
    if (safe(queens, row)) {
#pragma omp task shared(parts) firstprivate(queens)
      parts[static_cast<std::size_t>(column)] = count(n, row + 1, queens);
    }
  }
#pragma omp taskwait
  long total = 0;
  for (int column = 0; column < n; ++column) {
    total += parts[static_cast<std::size_t>(column)];
  }
  return total;
}

run_result run(const run_request& request) {
  const int n = board_size(request.size);
  omp_team team(request.workers);
  long answer = 0;
  const double seconds = team.time([&] { answer = count(n, 0, board{}); });
  verify(n, answer);
  return {seconds};
}

const implementation_registrar registrar{"nqueens", "omp", run};

}  // namespace
}  // namespace fjb::nqueens
