#include "matmul.hpp"

namespace fjb::matmul {
namespace {

std::string parameters(scale /*s*/, std::int64_t n) {
  return "n=" + std::to_string(n) + ", leaf " + std::to_string(leaf_order);
}

const workload_registrar registrar{{"matmul", "libfork Table I", "divide-and-conquer matrix product", 40,
                                    problem_size, parameters, every_scale}};

}  // namespace
}  // namespace fjb::matmul
