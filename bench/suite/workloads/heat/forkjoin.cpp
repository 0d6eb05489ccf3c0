#include <forkjoin/algorithm.hpp>

#include "heat.hpp"
#include "teams/fj_team.hpp"

namespace fjb::heat {
namespace {

fj::task<void> simulate(grid* g, int steps) {
  const auto update_row = [g](std::size_t row) { update_rows(*g, row, row + 1); };
  for (int step = 0; step < steps; ++step) {
    // Hundreds to thousands of rows of about a microsecond each: below the automatic partition's serial
    // cutoff, so blocks of row_grain rows, as the other implementations use (docs/algorithms.md "Grain").
    co_await fj::call(fj::co::for_each_index, std::size_t{1}, g->rows - 1, update_row, fj::grain(row_grain));
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
