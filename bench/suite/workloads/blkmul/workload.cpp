#include "blkmul.hpp"

namespace fjb::blkmul {
namespace {

std::string parameters(scale /*s*/, std::int64_t n) {
  return "n=" + std::to_string(n) + ", tiles " + std::to_string(tile);
}

const workload_registrar registrar{{"blkmul", "seed 003", "tiled matrix product, a task per tile of C", 110,
                                    problem_size, parameters, every_scale}};

}  // namespace
}  // namespace fjb::blkmul
