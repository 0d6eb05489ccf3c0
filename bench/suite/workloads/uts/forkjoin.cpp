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
  tree_count total{1, 0};
  for (const auto& part : parts) {
    total += part;
  }
  co_return total;
}

template <class Pool, tree_id Id>
run_result run(const run_request& request) {
  const tree_shape& shape = tree_at(Id, request.size).shape;
  fj_team<Pool> team(request.workers);
  tree_count answer{};
  const double seconds =
      team.time([&](Pool& pool) { answer = fj::sync_wait(pool, search, &shape, root_of(shape)); });
  verify(Id, request.size, answer);
  return {seconds};
}

const implementation_registrar t1_busy{"T1", "fj-busy", run<fj::busy_pool, tree_id::t1>};
const implementation_registrar t1l_busy{"T1L", "fj-busy", run<fj::busy_pool, tree_id::t1l>};
const implementation_registrar t1xxl_busy{"T1XXL", "fj-busy", run<fj::busy_pool, tree_id::t1xxl>};
const implementation_registrar t3_busy{"T3", "fj-busy", run<fj::busy_pool, tree_id::t3>};
const implementation_registrar t3l_busy{"T3L", "fj-busy", run<fj::busy_pool, tree_id::t3l>};
const implementation_registrar t3xxl_busy{"T3XXL", "fj-busy", run<fj::busy_pool, tree_id::t3xxl>};

const implementation_registrar t1_lazy{"T1", "fj-lazy", run<fj::lazy_pool, tree_id::t1>};
const implementation_registrar t1l_lazy{"T1L", "fj-lazy", run<fj::lazy_pool, tree_id::t1l>};
const implementation_registrar t1xxl_lazy{"T1XXL", "fj-lazy", run<fj::lazy_pool, tree_id::t1xxl>};
const implementation_registrar t3_lazy{"T3", "fj-lazy", run<fj::lazy_pool, tree_id::t3>};
const implementation_registrar t3l_lazy{"T3L", "fj-lazy", run<fj::lazy_pool, tree_id::t3l>};
const implementation_registrar t3xxl_lazy{"T3XXL", "fj-lazy", run<fj::lazy_pool, tree_id::t3xxl>};

const implementation_registrar t1_unit{"T1", "fj-unit", run<fj::unit_pool, tree_id::t1>};
const implementation_registrar t1l_unit{"T1L", "fj-unit", run<fj::unit_pool, tree_id::t1l>};
const implementation_registrar t1xxl_unit{"T1XXL", "fj-unit", run<fj::unit_pool, tree_id::t1xxl>};
const implementation_registrar t3_unit{"T3", "fj-unit", run<fj::unit_pool, tree_id::t3>};
const implementation_registrar t3l_unit{"T3L", "fj-unit", run<fj::unit_pool, tree_id::t3l>};
const implementation_registrar t3xxl_unit{"T3XXL", "fj-unit", run<fj::unit_pool, tree_id::t3xxl>};

}  // namespace
}  // namespace fjb::uts
