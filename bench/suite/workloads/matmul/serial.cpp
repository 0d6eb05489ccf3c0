#include "matmul.hpp"
#include "stopwatch.hpp"

namespace fjb::matmul {
namespace {

void multiply_add(block c, block a, block b, std::size_t n) {
  if (n <= leaf_order) {
    multiply_add_leaf(c, a, b, n);
    return;
  }
  const std::size_t h = n / 2;
  multiply_add(c.quadrant(0, 0, h), a.quadrant(0, 0, h), b.quadrant(0, 0, h), h);
  multiply_add(c.quadrant(0, 1, h), a.quadrant(0, 0, h), b.quadrant(0, 1, h), h);
  multiply_add(c.quadrant(1, 0, h), a.quadrant(1, 0, h), b.quadrant(0, 0, h), h);
  multiply_add(c.quadrant(1, 1, h), a.quadrant(1, 0, h), b.quadrant(0, 1, h), h);

  multiply_add(c.quadrant(0, 0, h), a.quadrant(0, 1, h), b.quadrant(1, 0, h), h);
  multiply_add(c.quadrant(0, 1, h), a.quadrant(0, 1, h), b.quadrant(1, 1, h), h);
  multiply_add(c.quadrant(1, 0, h), a.quadrant(1, 1, h), b.quadrant(1, 0, h), h);
  multiply_add(c.quadrant(1, 1, h), a.quadrant(1, 1, h), b.quadrant(1, 1, h), h);
}

run_result run(const run_request& request) {
  operands m = make_operands(order(request));
  const double seconds =
      seconds_taken([&] { multiply_add({m.c.data(), m.n}, {m.a.data(), m.n}, {m.b.data(), m.n}, m.n); });
  verify(m);
  return {seconds};
}

const implementation_registrar registrar{"matmul", "serial", run};

}  // namespace
}  // namespace fjb::matmul
