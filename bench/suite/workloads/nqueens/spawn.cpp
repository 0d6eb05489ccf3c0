#include "nqueens.hpp"
#include "teams/fj_team.hpp"

namespace fjb::nqueens {
namespace {

// Child stealing with a plain function: forkjoin.cpp's algorithm, written with fj::scope. Each child gets
// its own copy of the board (an rvalue argument is kept by value in the spawn), since the loop goes on
// changing `queens`.
long count(int n, int row, board queens) {
  if (row == n) {
    return 1;
  }
  column_counts parts{};
  fj::scope s;
  for (int column = 0; column < n; ++column) {
    queens[static_cast<std::size_t>(row)] = static_cast<std::uint8_t>(column);
    if (safe(queens, row)) {
      s.spawn(&parts[static_cast<std::size_t>(column)], count, n, row + 1, board(queens));
    }
  }
  s.sync();
  return total_of(parts, n);
}

run_result run(const run_request& request) {
  const int n = board_size(request);
  fj_team<fj::lazy_pool> team(request.workers);
  long answer = 0;
  const double seconds =
      team.time([&](fj::lazy_pool& pool) { answer = fj::sync_wait(pool, count, n, 0, board{}); });
  verify(n, answer);
  return {seconds};
}

const implementation_registrar spawn{"nqueens", "fj-spawn", run};

}  // namespace
}  // namespace fjb::nqueens
