#include "nbody.hpp"
#include "stopwatch.hpp"

namespace fjb::nbody {
namespace {

run_result run(const run_request& request) {
  const problem p = problem_at(request);
  galaxy s = initial_galaxy(p.bodies);
  const double seconds = seconds_taken([&] {
    for (int step = 0; step < p.steps; ++step) {
      for (std::size_t i = 0; i < s.size(); ++i) {
        accelerate(s, i);
      }
      for (std::size_t i = 0; i < s.size(); ++i) {
        move(s, i);
      }
    }
  });
  verify(p, s);
  return {seconds};
}

const implementation_registrar registrar{"nbody", "serial", run};

}  // namespace
}  // namespace fjb::nbody
