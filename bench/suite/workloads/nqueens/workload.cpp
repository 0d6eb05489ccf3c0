#include "nqueens.hpp"

namespace fjb::nqueens {
namespace {

std::string parameters(scale s) { return "n=" + std::to_string(board_size(s)); }

const workload_registrar registrar{{"nqueens", "libfork Table I",
                                    "N-queens solutions, a task per safe placement", 30, parameters,
                                    every_scale}};

}  // namespace
}  // namespace fjb::nqueens
