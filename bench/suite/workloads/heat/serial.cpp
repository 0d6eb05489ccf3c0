#include "heat.hpp"
#include "stopwatch.hpp"

namespace fjb::heat {
namespace {

run_result run(const run_request& request) {
  const problem p = problem_at(request);
  grid g = initial_grid(p);
  const double seconds = seconds_taken([&] {
    for (int step = 0; step < p.steps; ++step) {
      update_rows(g, 1, g.rows - 1);
      finish_step(g);
    }
  });
  verify(p, g);
  return {seconds};
}

const implementation_registrar registrar{"heat", "serial", run};

}  // namespace
}  // namespace fjb::heat
