#include "heat.hpp"

namespace fjb::heat {
namespace {

std::string parameters(scale s, std::int64_t n) {
  const problem p = problem_at({s, 1, n});
  return std::to_string(p.rows) + "x" + std::to_string(p.columns) + " grid, " + std::to_string(p.steps) +
         " steps";
}

const workload_registrar registrar{{"heat", "seed 004", "Jacobi heat diffusion, rows in parallel", 70,
                                    problem_size, parameters, every_scale}};

}  // namespace
}  // namespace fjb::heat
