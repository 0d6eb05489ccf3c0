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

const implementation_registrar registrar{"heat", "tbb", run_on_team<tbb_team, simulate>};

}  // namespace
}  // namespace fjb::heat
