#include "integrate.hpp"
#include "teams/fj_team.hpp"

namespace fjb::integrate {
namespace {

// Child stealing with a plain function: forkjoin.cpp's algorithm, written with fj::scope.
double area_between(double x1, double y1, double x2, double y2, double area, double epsilon) {
  const auto [x0, y0, left, right] = halve(x1, y1, x2, y2);
  if (converged(left + right, area, epsilon)) {
    return left + right;
  }
  double left_area = 0;
  fj::scope s;
  s.spawn(&left_area, area_between, x1, y1, x0, y0, left, epsilon);
  const double right_area = area_between(x0, y0, x2, y2, right, epsilon);
  s.sync();
  return left_area + right_area;
}

run_result run(const run_request& request) {
  const problem p = problem_at(request);
  fj_team<fj::lazy_pool> team(request.workers);
  double answer = 0;
  const double seconds = team.time([&](fj::lazy_pool& pool) {
    answer = fj::sync_wait(pool, area_between, 0.0, f(0), p.upper, f(p.upper), 0.0, p.epsilon);
  });
  verify(p, answer);
  return {seconds};
}

const implementation_registrar spawn{"integrate", "fj-spawn", run};

}  // namespace
}  // namespace fjb::integrate
