#include "dfs.hpp"
#include "teams/omp_team.hpp"

namespace fjb::dfs {
namespace {

std::uint64_t search(int branching, int depth, std::uint64_t number) {
  if (depth == 0) {
    return number;
  }
  child_sums parts{};
  for (int child = 0; child < branching; ++child) {
#pragma omp task shared(parts)
    parts[static_cast<std::size_t>(child)] =
        search(branching, depth - 1, child_number(number, branching, child));
  }
#pragma omp taskwait
  return sum_of_children(parts, branching);
}

const implementation_registrar registrar{"dfs", "omp", run_on_team<omp_team, search>};

}  // namespace
}  // namespace fjb::dfs
