#include "nbody.hpp"
#include "teams/fj_spawn_for.hpp"
#include "teams/fj_team.hpp"

namespace fjb::nbody {
namespace {

// forkjoin.cpp's steps with its loops split in halves by fj::scope (fj_spawn_for.hpp), same grain.
void simulate(galaxy* s, int steps) {
  const auto accelerate_body = [s](std::size_t i) { accelerate(*s, i); };
  const auto move_body = [s](std::size_t i) { move(*s, i); };
  for (int step = 0; step < steps; ++step) {
    fj_spawn_for_each_index(0, s->size(), body_grain, accelerate_body);
    fj_spawn_for_each_index(0, s->size(), body_grain, move_body);
  }
}

run_result run(const run_request& request) {
  const problem p = problem_at(request);
  galaxy s = initial_galaxy(p.bodies);
  fj_team<fj::lazy_pool> team(request.workers);
  const double seconds = team.time([&](fj::lazy_pool& pool) { fj::sync_wait(pool, simulate, &s, p.steps); });
  verify(p, s);
  return {seconds};
}

const implementation_registrar spawn{"nbody", "fj-spawn", run};

}  // namespace
}  // namespace fjb::nbody
