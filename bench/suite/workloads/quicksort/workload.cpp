#include "quicksort.hpp"

namespace fjb::quicksort {
namespace {

std::string parameters(scale /*s*/, std::int64_t n) {
  return "n=" + std::to_string(n) + ", cutoff " + std::to_string(cutoff);
}

const workload_registrar registrar{{"quicksort", "seed 004", "parallel quicksort of random integers", 60,
                                    problem_size, parameters, every_scale}};

}  // namespace
}  // namespace fjb::quicksort
