#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "nbody.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::nbody {
namespace {

void simulate(galaxy& s, int steps) {
  const tbb::blocked_range<std::size_t> bodies(0, s.size(), body_grain);
  for (int step = 0; step < steps; ++step) {
    tbb::parallel_for(bodies, [&s](const tbb::blocked_range<std::size_t>& range) {
      for (std::size_t i = range.begin(); i < range.end(); ++i) {
        accelerate(s, i);
      }
    });
    tbb::parallel_for(bodies, [&s](const tbb::blocked_range<std::size_t>& range) {
      for (std::size_t i = range.begin(); i < range.end(); ++i) {
        move(s, i);
      }
    });
  }
}

const implementation_registrar registrar{"nbody", "tbb", run_on_team<tbb_team, simulate>};

}  // namespace
}  // namespace fjb::nbody
