#include <tbb/task_group.h>

#include <vector>

#include "teams/tbb_team.hpp"
#include "uts.hpp"

namespace fjb::uts {
namespace {

tree_count search(const tree_shape& shape, const node& parent) {
  const int children = child_count(shape, parent);
  if (children == 0) {
    return {1, 1};
  }
  std::vector<tree_count> parts(static_cast<std::size_t>(children));
  tbb::task_group group;
  for (int i = 0; i < children; ++i) {
    group.run([&shape, &parts, i, child = child_of(parent, i)] {
      parts[static_cast<std::size_t>(i)] = search(shape, child);
    });
  }
  group.wait();
  return inner_node_count(parts);
}

const tree_registrars<run_on_team<tbb_team, search>> registrars{"tbb"};

}  // namespace
}  // namespace fjb::uts
