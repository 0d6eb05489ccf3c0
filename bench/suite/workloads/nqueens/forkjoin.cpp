#include "nqueens.hpp"
#include "teams/fj_team.hpp"

namespace fjb::nqueens {
namespace {

fj::task<long> count(int n, int row, board queens) {
  if (row == n) {
    co_return 1;
  }
  column_counts parts{};
  for (int column = 0; column < n; ++column) {
    queens[static_cast<std::size_t>(row)] = static_cast<std::uint8_t>(column);
    if (safe(queens, row)) {
      co_await fj::fork(&parts[static_cast<std::size_t>(column)], count, n, row + 1, queens);
    }
  }
  co_await fj::join;
  co_return total_of(parts, n);
}

template <class Pool>
run_result run(const run_request& request) {
  const int n = board_size(request);
  fj_team<Pool> team(request.workers);
  long answer = 0;
  const double seconds = team.time([&](Pool& pool) { answer = fj::sync_wait(pool, count, n, 0, board{}); });
  verify(n, answer);
  return {seconds};
}

const implementation_registrar busy{"nqueens", "fj-busy", run<fj::busy_pool>};
const implementation_registrar lazy{"nqueens", "fj-lazy", run<fj::lazy_pool>};
const implementation_registrar unit{"nqueens", "fj-unit", run<fj::unit_pool>};

}  // namespace
}  // namespace fjb::nqueens
