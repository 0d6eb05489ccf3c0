#include <tbb/parallel_invoke.h>

#include "integrate.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::integrate {
namespace {

double area_between(double x1, double y1, double x2, double y2, double area, double epsilon) {
  const double half = (x2 - x1) / 2;
  const double x0 = x1 + half;
  const double y0 = f(x0);
  const double left = (y1 + y0) / 2 * half;
  const double right = (y0 + y2) / 2 * half;
  if (converged(left + right, area, epsilon)) {
    return left + right;
  }
  double left_area = 0;
  double right_area = 0;
  tbb::parallel_invoke([&] { left_area = area_between(x1, y1, x0, y0, left, epsilon); },
                       [&] { right_area = area_between(x0, y0, x2, y2, right, epsilon); });
  return left_area + right_area;
}

run_result run(const run_request& request) {
  const problem p = problem_at(request.size);
  tbb_team team(request.workers);
  double answer = 0;
  const double seconds =
      team.time([&] { answer = area_between(0, f(0), p.upper, f(p.upper), 0, p.epsilon); });
  verify(p, answer);
  return {seconds};
}

const implementation_registrar registrar{"integrate", "tbb", run};

}  // namespace
}  // namespace fjb::integrate
