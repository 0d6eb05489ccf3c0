#include "dfs.hpp"

namespace fjb::dfs {
namespace {

std::string parameters(scale s, std::int64_t n) {
  const problem p = problem_at({s, 1, n});
  return "branching " + std::to_string(p.branching) + ", depth " + std::to_string(p.depth);
}

const workload_registrar registrar{
    {"dfs", "seed 003", "depth-first search of a balanced tree", 100, problem_size, parameters, every_scale}};

}  // namespace
}  // namespace fjb::dfs
