#include "integrate.hpp"
#include "teams/omp_team.hpp"

namespace fjb::integrate {
namespace {

double area_between(double x1, double y1, double x2, double y2, double area, double epsilon) {
  // A struct, not a structured binding: clang cannot capture structured bindings in an OpenMP task.
  const halves h = halve(x1, y1, x2, y2);
  if (converged(h.left + h.right, area, epsilon)) {
    return h.left + h.right;
  }
  double left_area = 0;
  double right_area = 0;
#pragma omp task shared(left_area)
  left_area = area_between(x1, y1, h.x0, h.y0, h.left, epsilon);
  right_area = area_between(h.x0, h.y0, x2, y2, h.right, epsilon);
#pragma omp taskwait
  return left_area + right_area;
}

const implementation_registrar registrar{"integrate", "omp", run_on_team<omp_team, area_between>};

}  // namespace
}  // namespace fjb::integrate
