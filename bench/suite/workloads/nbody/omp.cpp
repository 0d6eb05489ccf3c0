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

const implementation_registrar registrar{"nbody", "omp", run_on_team<omp_team, simulate>};

}  // namespace
}  // namespace fjb::nbody
