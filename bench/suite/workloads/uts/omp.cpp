#include <vector>

#include "teams/omp_team.hpp"
#include "uts.hpp"

namespace fjb::uts {
namespace {

tree_count search(const tree_shape& shape, const node& parent) {
  const int children = child_count(shape, parent);
  if (children == 0) {
    return {1, 1};
  }
  std::vector<tree_count> parts(static_cast<std::size_t>(children));
  for (int i = 0; i < children; ++i) {
    const node child = child_of(parent, i);
#pragma omp task shared(shape, parts)
    parts[static_cast<std::size_t>(i)] = search(shape, child);
  }
#pragma omp taskwait
  return inner_node_count(parts);
}

const tree_registrars<run_on_team<omp_team, search>> registrars{"omp"};

}  // namespace
}  // namespace fjb::uts
