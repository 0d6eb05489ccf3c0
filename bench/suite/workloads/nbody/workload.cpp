#include "nbody.hpp"

namespace fjb::nbody {
namespace {

std::string parameters(scale s) {
  const problem p = problem_at(s);
  return std::to_string(p.bodies) + " bodies, " + std::to_string(p.steps) + " steps";
}

const workload_registrar registrar{
    {"nbody", "seed 004", "direct-sum n-body, bodies in parallel", 80, parameters, every_scale}};

}  // namespace
}  // namespace fjb::nbody
