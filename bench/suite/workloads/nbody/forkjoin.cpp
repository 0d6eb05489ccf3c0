#include <forkjoin/algorithm.hpp>

#include "nbody.hpp"
#include "teams/fj_team.hpp"

namespace fjb::nbody {
namespace {

fj::task<void> simulate(galaxy* s, int steps) {
  const auto accelerate_body = [s](std::size_t i) { accelerate(*s, i); };
  const auto move_body = [s](std::size_t i) { move(*s, i); };
  for (int step = 0; step < steps; ++step) {
    // A body's acceleration costs O(bodies): too few bodies for the automatic partition's serial cutoff, so
    // the same grain as the other implementations (docs/algorithms.md "Grain").
    co_await fj::call(fj::co::for_each_index, std::size_t{0}, s->size(), accelerate_body,
                      fj::grain(body_grain));
    co_await fj::call(fj::co::for_each_index, std::size_t{0}, s->size(), move_body, fj::grain(body_grain));
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
