#include "nbody.hpp"
#include "teams/omp_parallel_for.hpp"
#include "teams/omp_team.hpp"

namespace fjb::nbody {
namespace {

void simulate(galaxy& s, int steps) {
  for (int step = 0; step < steps; ++step) {
    omp_for_each_index(0, s.size(), body_grain, [&s](std::size_t i) { accelerate(s, i); });
    omp_for_each_index(0, s.size(), body_grain, [&s](std::size_t i) { move(s, i); });
  }
}

run_result run(const run_request& request) {
  const problem p = problem_at(request.size);
  galaxy s = initial_galaxy(p.bodies);
  omp_team team(request.workers);
  const double seconds = team.time([&] { simulate(s, p.steps); });
  verify(p, s);
  return {seconds};
}

const implementation_registrar registrar{"nbody", "omp", run};

}  // namespace
}  // namespace fjb::nbody
