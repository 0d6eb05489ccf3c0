#include <cstdio>

#include "integrate.hpp"

namespace fjb::integrate {
namespace {

std::string parameters(scale s, std::int64_t n) {
  const problem p = problem_at({s, 1, n});
  char text[64];
  std::snprintf(text, sizeof text, "n=%g, epsilon=%g", p.upper, p.epsilon);
  return text;
}

const workload_registrar registrar{{"integrate", "libfork Table I", "adaptive trapezoid integration", 20,
                                    problem_size, parameters, every_scale}};

}  // namespace
}  // namespace fjb::integrate
