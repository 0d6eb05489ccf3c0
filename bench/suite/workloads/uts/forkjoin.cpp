#include <vector>

#include "teams/fj_team.hpp"
#include "uts.hpp"

namespace fjb::uts {
namespace {

// Results of the children go to a heap vector, as in the plain (not stack-allocating) libfork version.
fj::task<tree_count> search(const tree_shape* shape, node parent) {
  const int children = child_count(*shape, parent);
  if (children == 0) {
    co_return tree_count{1, 1};
  }
  std::vector<tree_count> parts(static_cast<std::size_t>(children));
  for (int i = 0; i < children; ++i) {
    co_await fj::fork(&parts[static_cast<std::size_t>(i)], search, shape, child_of(parent, i));
  }
  co_await fj::join;
  co_return inner_node_count(parts);
}

template <class Pool>
run_result run(tree_id id, const run_request& request) {
  const tree_case tree = tree_for(id, request);
  const tree_shape& shape = tree.shape;
  fj_team<Pool> team(request.workers);
  tree_count answer{};
  const double seconds =
      team.time([&](Pool& pool) { answer = fj::sync_wait(pool, search, &shape, root_of(shape)); });
  verify(id, tree, answer);
  return {seconds};
}

const tree_registrars<run<fj::busy_pool>> busy{"fj-busy"};
const tree_registrars<run<fj::lazy_pool>> lazy{"fj-lazy"};
const tree_registrars<run<fj::unit_pool>> unit{"fj-unit"};

}  // namespace
}  // namespace fjb::uts
