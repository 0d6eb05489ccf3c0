#include "integrate.hpp"
#include "stopwatch.hpp"

namespace fjb::integrate {
namespace {

double area_between(double x1, double y1, double x2, double y2, double area, double epsilon) {
  const auto [x0, y0, left, right] = halve(x1, y1, x2, y2);
  if (converged(left + right, area, epsilon)) {
    return left + right;
  }
  return area_between(x1, y1, x0, y0, left, epsilon) + area_between(x0, y0, x2, y2, right, epsilon);
}

run_result run(const run_request& request) {
  const problem p = problem_at(request);
  double answer = 0;
  const double seconds =
      seconds_taken([&] { answer = area_between(0, f(0), p.upper, f(p.upper), 0, p.epsilon); });
  verify(p, answer);
  return {seconds};
}

const implementation_registrar registrar{"integrate", "serial", run};

}  // namespace
}  // namespace fjb::integrate
