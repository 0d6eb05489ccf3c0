#include "nbody.hpp"

namespace fjb::nbody {
namespace {

std::string parameters(scale s, std::int64_t n) {
  const problem p = problem_at({s, 1, n});
  return std::to_string(p.bodies) + " bodies, " + std::to_string(p.steps) + " steps";
}

const workload_registrar registrar{{"nbody", "seed 004", "direct-sum n-body, bodies in parallel", 80,
                                    problem_size, parameters, every_scale}};

}  // namespace
}  // namespace fjb::nbody
