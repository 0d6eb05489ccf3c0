#include <tbb/parallel_invoke.h>

#include "matmul.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::matmul {
namespace {

void multiply_add(block c, block a, block b, std::size_t n) {
  if (n <= leaf_order) {
    multiply_add_leaf(c, a, b, n);
    return;
  }
  const std::size_t h = n / 2;
  tbb::parallel_invoke(
      [&] { multiply_add(c.quadrant(0, 0, h), a.quadrant(0, 0, h), b.quadrant(0, 0, h), h); },
      [&] { multiply_add(c.quadrant(0, 1, h), a.quadrant(0, 0, h), b.quadrant(0, 1, h), h); },
      [&] { multiply_add(c.quadrant(1, 0, h), a.quadrant(1, 0, h), b.quadrant(0, 0, h), h); },
      [&] { multiply_add(c.quadrant(1, 1, h), a.quadrant(1, 0, h), b.quadrant(0, 1, h), h); });
  tbb::parallel_invoke(
      [&] { multiply_add(c.quadrant(0, 0, h), a.quadrant(0, 1, h), b.quadrant(1, 0, h), h); },
      [&] { multiply_add(c.quadrant(0, 1, h), a.quadrant(0, 1, h), b.quadrant(1, 1, h), h); },
      [&] { multiply_add(c.quadrant(1, 0, h), a.quadrant(1, 1, h), b.quadrant(1, 0, h), h); },
      [&] { multiply_add(c.quadrant(1, 1, h), a.quadrant(1, 1, h), b.quadrant(1, 1, h), h); });
}

const implementation_registrar registrar{"matmul", "tbb", run_on_team<tbb_team, multiply_add>};

}  // namespace
}  // namespace fjb::matmul
