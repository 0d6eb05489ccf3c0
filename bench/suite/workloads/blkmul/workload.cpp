#include "blkmul.hpp"

namespace fjb::blkmul {
namespace {

std::string parameters(scale s) {
  return "n=" + std::to_string(order(s)) + ", tiles " + std::to_string(tile);
}

const workload_registrar registrar{
    {"blkmul", "seed 003", "tiled matrix product, a task per tile of C", 110, parameters, every_scale}};

}  // namespace
}  // namespace fjb::blkmul
