#include "matmul.hpp"

namespace fjb::matmul {
namespace {

std::string parameters(scale s) {
  return "n=" + std::to_string(order(s)) + ", leaf " + std::to_string(leaf_order);
}

const workload_registrar registrar{
    {"matmul", "libfork Table I", "divide-and-conquer matrix product", 40, parameters, every_scale}};

}  // namespace
}  // namespace fjb::matmul
