#include "pfor.hpp"

namespace fjb::pfor {
namespace {

std::string parameters(scale s, std::int64_t n) {
  const problem p = problem_at({s, 1, n});
  return std::to_string(p.iterations) + " sorts of " + std::to_string(p.elements) + " ints";
}

const workload_registrar registrar{{"pfor", "seed 004", "parallel for-loop over independent sorts", 90,
                                    problem_size, parameters, every_scale}};

}  // namespace
}  // namespace fjb::pfor
