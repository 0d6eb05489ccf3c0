#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "heat.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::heat {
namespace {

void simulate(grid& g, int steps) {
  for (int step = 0; step < steps; ++step) {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(1, g.rows - 1, row_grain),
        [&g](const tbb::blocked_range<std::size_t>& rows) { update_rows(g, rows.begin(), rows.end()); });
    finish_step(g);
  }
}

run_result run(const run_request& request) {
  const problem p = problem_at(request.size);
  grid g = initial_grid(p);
  tbb_team team(request.workers);
  const double seconds = team.time([&] { simulate(g, p.steps); });
  verify(p, g);
  return {seconds};
}

const implementation_registrar registrar{"heat", "tbb", run};

}  // namespace
}  // namespace fjb::heat
