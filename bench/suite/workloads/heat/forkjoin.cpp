#include "heat.hpp"
#include "teams/fj_parallel_for.hpp"
#include "teams/fj_team.hpp"

namespace fjb::heat {
namespace {

fj::task<void> simulate(grid* g, int steps) {
  const auto update_block = [g](std::size_t block) {
    const std::size_t first = 1 + block * row_grain;
    update_rows(*g, first, std::min(first + row_grain, g->rows - 1));
  };
  const std::size_t blocks = (g->rows - 2 + row_grain - 1) / row_grain;
  for (int step = 0; step < steps; ++step) {
    co_await fj::call(fj_for_each_index<decltype(update_block)>, 0, blocks, 1, &update_block);
    finish_step(*g);
  }
}

template <class Pool>
run_result run(const run_request& request) {
  const problem p = problem_at(request);
  grid g = initial_grid(p);
  fj_team<Pool> team(request.workers);
  const double seconds = team.time([&](Pool& pool) { fj::sync_wait(pool, simulate, &g, p.steps); });
  verify(p, g);
  return {seconds};
}

const implementation_registrar busy{"heat", "fj-busy", run<fj::busy_pool>};
const implementation_registrar lazy{"heat", "fj-lazy", run<fj::lazy_pool>};
const implementation_registrar unit{"heat", "fj-unit", run<fj::unit_pool>};

}  // namespace
}  // namespace fjb::heat
