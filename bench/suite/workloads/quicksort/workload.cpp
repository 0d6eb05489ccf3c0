#include "quicksort.hpp"

namespace fjb::quicksort {
namespace {

std::string parameters(scale s) {
  return "n=" + std::to_string(element_count(s)) + ", cutoff " + std::to_string(cutoff);
}

const workload_registrar registrar{
    {"quicksort", "seed 004", "parallel quicksort of random integers", 60, parameters, every_scale}};

}  // namespace
}  // namespace fjb::quicksort
