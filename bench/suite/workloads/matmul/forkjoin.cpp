#include "matmul.hpp"
#include "teams/fj_team.hpp"

namespace fjb::matmul {
namespace {

fj::task<void> multiply_add(block c, block a, block b, std::size_t n) {
  if (n <= leaf_order) {
    multiply_add_leaf(c, a, b, n);
    co_return;
  }
  const std::size_t h = n / 2;
  co_await fj::fork(multiply_add, c.quadrant(0, 0, h), a.quadrant(0, 0, h), b.quadrant(0, 0, h), h);
  co_await fj::fork(multiply_add, c.quadrant(0, 1, h), a.quadrant(0, 0, h), b.quadrant(0, 1, h), h);
  co_await fj::fork(multiply_add, c.quadrant(1, 0, h), a.quadrant(1, 0, h), b.quadrant(0, 0, h), h);
  co_await fj::call(multiply_add, c.quadrant(1, 1, h), a.quadrant(1, 0, h), b.quadrant(0, 1, h), h);
  co_await fj::join;

  co_await fj::fork(multiply_add, c.quadrant(0, 0, h), a.quadrant(0, 1, h), b.quadrant(1, 0, h), h);
  co_await fj::fork(multiply_add, c.quadrant(0, 1, h), a.quadrant(0, 1, h), b.quadrant(1, 1, h), h);
  co_await fj::fork(multiply_add, c.quadrant(1, 0, h), a.quadrant(1, 1, h), b.quadrant(1, 0, h), h);
  co_await fj::call(multiply_add, c.quadrant(1, 1, h), a.quadrant(1, 1, h), b.quadrant(1, 1, h), h);
  co_await fj::join;
}

template <class Pool>
run_result run(const run_request& request) {
  operands m = make_operands(order(request));
  fj_team<Pool> team(request.workers);
  const double seconds = team.time([&](Pool& pool) {
    fj::sync_wait(pool, multiply_add, block{m.c.data(), m.n}, block{m.a.data(), m.n}, block{m.b.data(), m.n},
                  m.n);
  });
  verify(m);
  return {seconds};
}

const implementation_registrar busy{"matmul", "fj-busy", run<fj::busy_pool>};
const implementation_registrar lazy{"matmul", "fj-lazy", run<fj::lazy_pool>};
const implementation_registrar unit{"matmul", "fj-unit", run<fj::unit_pool>};

}  // namespace
}  // namespace fjb::matmul
