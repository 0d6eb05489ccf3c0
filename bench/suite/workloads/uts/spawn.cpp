#include <vector>

#include "teams/fj_team.hpp"
#include "uts.hpp"

namespace fjb::uts {
namespace {

// Child stealing with a plain function: forkjoin.cpp's search (children's results in a heap vector),
// written with fj::scope.
tree_count search(const tree_shape* shape, node parent) {
  const int children = child_count(*shape, parent);
  if (children == 0) {
    return tree_count{1, 1};
  }
  std::vector<tree_count> parts(static_cast<std::size_t>(children));
  fj::scope s;
  for (int i = 0; i < children; ++i) {
    s.spawn(&parts[static_cast<std::size_t>(i)], search, shape, child_of(parent, i));
  }
  s.sync();
  return inner_node_count(parts);
}

run_result run(tree_id id, const run_request& request) {
  const tree_case tree = tree_for(id, request);
  const tree_shape& shape = tree.shape;
  fj_team<fj::lazy_pool> team(request.workers);
  tree_count answer{};
  const double seconds =
      team.time([&](fj::lazy_pool& pool) { answer = fj::sync_wait(pool, search, &shape, root_of(shape)); });
  verify(id, tree, answer);
  return {seconds};
}

const tree_registrars<run> spawn{"fj-spawn"};

}  // namespace
}  // namespace fjb::uts
