#include "matmul.hpp"
#include "teams/omp_team.hpp"

namespace fjb::matmul {
namespace {

void multiply_add(block c, block a, block b, std::size_t n) {
  if (n <= leaf_order) {
    multiply_add_leaf(c, a, b, n);
    return;
  }
  const std::size_t h = n / 2;
#pragma omp task
  multiply_add(c.quadrant(0, 0, h), a.quadrant(0, 0, h), b.quadrant(0, 0, h), h);
#pragma omp task
  multiply_add(c.quadrant(0, 1, h), a.quadrant(0, 0, h), b.quadrant(0, 1, h), h);
#pragma omp task
  multiply_add(c.quadrant(1, 0, h), a.quadrant(1, 0, h), b.quadrant(0, 0, h), h);
  multiply_add(c.quadrant(1, 1, h), a.quadrant(1, 0, h), b.quadrant(0, 1, h), h);
#pragma omp taskwait

#pragma omp task
  multiply_add(c.quadrant(0, 0, h), a.quadrant(0, 1, h), b.quadrant(1, 0, h), h);
#pragma omp task
  multiply_add(c.quadrant(0, 1, h), a.quadrant(0, 1, h), b.quadrant(1, 1, h), h);
#pragma omp task
  multiply_add(c.quadrant(1, 0, h), a.quadrant(1, 1, h), b.quadrant(1, 0, h), h);
  multiply_add(c.quadrant(1, 1, h), a.quadrant(1, 1, h), b.quadrant(1, 1, h), h);
#pragma omp taskwait
}

const implementation_registrar registrar{"matmul", "omp", run_on_team<omp_team, multiply_add>};

}  // namespace
}  // namespace fjb::matmul
