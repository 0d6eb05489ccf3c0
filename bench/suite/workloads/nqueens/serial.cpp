#include "nqueens.hpp"
#include "stopwatch.hpp"

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
      parts[static_cast<std::size_t>(column)] = count(n, row + 1, queens);
    }
  }
  return total_of(parts, n);
}

run_result run(const run_request& request) {
  const int n = board_size(request);
  long answer = 0;
  const double seconds = seconds_taken([&] { answer = count(n, 0, board{}); });
  verify(n, answer);
  return {seconds};
}

const implementation_registrar registrar{"nqueens", "serial", run};

}  // namespace
}  // namespace fjb::nqueens
