#include "heat.hpp"
#include "teams/fj_spawn_for.hpp"
#include "teams/fj_team.hpp"

namespace fjb::heat {
namespace {

// forkjoin.cpp's steps with the row blocks split in halves by fj::scope (fj_spawn_for.hpp), same grain.
void simulate(grid* g, int steps) {
  const auto update_block = [g](std::size_t block) {
    const std::size_t first = 1 + block * row_grain;
    update_rows(*g, first, std::min(first + row_grain, g->rows - 1));
  };
  const std::size_t blocks = (g->rows - 2 + row_grain - 1) / row_grain;
  for (int step = 0; step < steps; ++step) {
    fj_spawn_for_each_index(0, blocks, 1, update_block);
    finish_step(*g);
  }
}

run_result run(const run_request& request) {
  const problem p = problem_at(request);
  grid g = initial_grid(p);
  fj_team<fj::lazy_pool> team(request.workers);
  const double seconds = team.time([&](fj::lazy_pool& pool) { fj::sync_wait(pool, simulate, &g, p.steps); });
  verify(p, g);
  return {seconds};
}

const implementation_registrar spawn{"heat", "fj-spawn", run};

}  // namespace
}  // namespace fjb::heat
