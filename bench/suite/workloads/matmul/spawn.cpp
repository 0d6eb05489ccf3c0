#include "matmul.hpp"
#include "teams/fj_team.hpp"

namespace fjb::matmul {
namespace {

// Child stealing with a plain function: forkjoin.cpp's algorithm (two rounds of four quadrant products,
// three spawned and one called, a sync after each round), written with fj::scope.
void multiply_add(block c, block a, block b, std::size_t n) {
  if (n <= leaf_order) {
    multiply_add_leaf(c, a, b, n);
    return;
  }
  const std::size_t h = n / 2;
  fj::scope s;
  s.spawn(multiply_add, c.quadrant(0, 0, h), a.quadrant(0, 0, h), b.quadrant(0, 0, h), h);
  s.spawn(multiply_add, c.quadrant(0, 1, h), a.quadrant(0, 0, h), b.quadrant(0, 1, h), h);
  s.spawn(multiply_add, c.quadrant(1, 0, h), a.quadrant(1, 0, h), b.quadrant(0, 0, h), h);
  multiply_add(c.quadrant(1, 1, h), a.quadrant(1, 0, h), b.quadrant(0, 1, h), h);
  s.sync();

  s.spawn(multiply_add, c.quadrant(0, 0, h), a.quadrant(0, 1, h), b.quadrant(1, 0, h), h);
  s.spawn(multiply_add, c.quadrant(0, 1, h), a.quadrant(0, 1, h), b.quadrant(1, 1, h), h);
  s.spawn(multiply_add, c.quadrant(1, 0, h), a.quadrant(1, 1, h), b.quadrant(1, 0, h), h);
  multiply_add(c.quadrant(1, 1, h), a.quadrant(1, 1, h), b.quadrant(1, 1, h), h);
  s.sync();
}

run_result run(const run_request& request) {
  operands m = make_operands(order(request));
  fj_team<fj::lazy_pool> team(request.workers);
  const double seconds = team.time([&](fj::lazy_pool& pool) {
    fj::sync_wait(pool, multiply_add, block{m.c.data(), m.n}, block{m.a.data(), m.n}, block{m.b.data(), m.n},
                  m.n);
  });
  verify(m);
  return {seconds};
}

const implementation_registrar spawn{"matmul", "fj-spawn", run};

}  // namespace
}  // namespace fjb::matmul
