#include "integrate.hpp"
#include "teams/fj_team.hpp"

namespace fjb::integrate {
namespace {

fj::task<double> area_between(double x1, double y1, double x2, double y2, double area, double epsilon) {
  const auto [x0, y0, left, right] = halve(x1, y1, x2, y2);
  if (converged(left + right, area, epsilon)) {
    co_return left + right;
  }
  // Left unset, as in libfork's benchmark: the children write them before the join, and after a throw they
  // are never read (zeroing them costs an instruction per task).
  double left_area;
  double right_area;
  co_await fj::fork(&left_area, area_between, x1, y1, x0, y0, left, epsilon);
  co_await fj::call(&right_area, area_between, x0, y0, x2, y2, right, epsilon);
  co_await fj::join;
  co_return left_area + right_area;
}

template <class Pool>
run_result run(const run_request& request) {
  const problem p = problem_at(request);
  fj_team<Pool> team(request.workers);
  double answer = 0;
  const double seconds = team.time([&](Pool& pool) {
    answer = fj::sync_wait(pool, area_between, 0.0, f(0), p.upper, f(p.upper), 0.0, p.epsilon);
  });
  verify(p, answer);
  return {seconds};
}

const implementation_registrar busy{"integrate", "fj-busy", run<fj::busy_pool>};
const implementation_registrar lazy{"integrate", "fj-lazy", run<fj::lazy_pool>};
const implementation_registrar unit{"integrate", "fj-unit", run<fj::unit_pool>};

}  // namespace
}  // namespace fjb::integrate
