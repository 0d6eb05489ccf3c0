#include "heat.hpp"
#include "teams/omp_parallel_for.hpp"
#include "teams/omp_team.hpp"

namespace fjb::heat {
namespace {

void simulate(grid& g, int steps) {
  for (int step = 0; step < steps; ++step) {
    omp_for_each_index(1, g.rows - 1, row_grain, [&g](std::size_t row) { update_rows(g, row, row + 1); });
    finish_step(g);
  }
}

const implementation_registrar registrar{"heat", "omp", run_on_team<omp_team, simulate>};

}  // namespace
}  // namespace fjb::heat
