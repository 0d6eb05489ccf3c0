#include "nbody.hpp"
#include "teams/fj_parallel_for.hpp"
#include "teams/fj_team.hpp"

namespace fjb::nbody {
namespace {

fj::task<void> simulate(galaxy* s, int steps) {
  const auto accelerate_body = [s](std::size_t i) { accelerate(*s, i); };
  const auto move_body = [s](std::size_t i) { move(*s, i); };
  for (int step = 0; step < steps; ++step) {
    co_await fj::call(fj_for_each_index<decltype(accelerate_body)>, 0, s->size(), body_grain,
                      &accelerate_body);
    co_await fj::call(fj_for_each_index<decltype(move_body)>, 0, s->size(), body_grain, &move_body);
  }
}

template <class Pool>
run_result run(const run_request& request) {
  const problem p = problem_at(request);
  galaxy s = initial_galaxy(p.bodies);
  fj_team<Pool> team(request.workers);
  const double seconds = team.time([&](Pool& pool) { fj::sync_wait(pool, simulate, &s, p.steps); });
  verify(p, s);
  return {seconds};
}

const implementation_registrar busy{"nbody", "fj-busy", run<fj::busy_pool>};
const implementation_registrar lazy{"nbody", "fj-lazy", run<fj::lazy_pool>};
const implementation_registrar unit{"nbody", "fj-unit", run<fj::unit_pool>};

}  // namespace
}  // namespace fjb::nbody
