#include "pfor.hpp"

namespace fjb::pfor {
namespace {

std::string parameters(scale s) {
  const problem p = problem_at(s);
  return std::to_string(p.iterations) + " sorts of " + std::to_string(p.elements) + " ints";
}

const workload_registrar registrar{
    {"pfor", "seed 004", "parallel for-loop over independent sorts", 90, parameters, every_scale}};

}  // namespace
}  // namespace fjb::pfor
