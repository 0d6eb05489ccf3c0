#include <tbb/parallel_invoke.h>

#include "integrate.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::integrate {
namespace {

double area_between(double x1, double y1, double x2, double y2, double area, double epsilon) {
  const auto [x0, y0, left, right] = halve(x1, y1, x2, y2);
  if (converged(left + right, area, epsilon)) {
    return left + right;
  }
  double left_area = 0;
  double right_area = 0;
  tbb::parallel_invoke([&] { left_area = area_between(x1, y1, x0, y0, left, epsilon); },
                       [&] { right_area = area_between(x0, y0, x2, y2, right, epsilon); });
  return left_area + right_area;
}

const implementation_registrar registrar{"integrate", "tbb", run_on_team<tbb_team, area_between>};

}  // namespace
}  // namespace fjb::integrate
