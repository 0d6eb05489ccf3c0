#include "dfs.hpp"
#include "teams/fj_team.hpp"

namespace fjb::dfs {
namespace {

fj::task<std::uint64_t> search(int branching, int depth, std::uint64_t number) {
  if (depth == 0) {
    co_return number;
  }
  child_sums parts{};
  for (int child = 0; child < branching; ++child) {
    co_await fj::fork(&parts[static_cast<std::size_t>(child)], search, branching, depth - 1,
                      child_number(number, branching, child));
  }
  co_await fj::join;
  co_return sum_of_children(parts, branching);
}

template <class Pool>
run_result run(const run_request& request) {
  const problem p = problem_at(request);
  fj_team<Pool> team(request.workers);
  std::uint64_t answer = 0;
  const double seconds = team.time(
      [&](Pool& pool) { answer = fj::sync_wait(pool, search, p.branching, p.depth, std::uint64_t{0}); });
  verify(p, answer);
  return {seconds};
}

const implementation_registrar busy{"dfs", "fj-busy", run<fj::busy_pool>};
const implementation_registrar lazy{"dfs", "fj-lazy", run<fj::lazy_pool>};
const implementation_registrar unit{"dfs", "fj-unit", run<fj::unit_pool>};

}  // namespace
}  // namespace fjb::dfs
