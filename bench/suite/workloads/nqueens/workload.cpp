#include "nqueens.hpp"

namespace fjb::nqueens {
namespace {

std::string parameters(scale /*s*/, std::int64_t n) { return "n=" + std::to_string(n); }

const workload_registrar registrar{{"nqueens", "libfork Table I",
                                    "N-queens solutions, a task per safe placement", 30, problem_size,
                                    parameters, every_scale}};

}  // namespace
}  // namespace fjb::nqueens
