#include <cstdio>

#include "uts.hpp"

namespace fjb::uts {
namespace {

template <tree_id Id>
std::string parameters(scale s, std::int64_t n) {
  const tree_case tree = tree_for(Id, {s, 1, n});
  const tree_shape& shape = tree.shape;
  const std::string nodes = tree.nodes ? std::to_string(*tree.nodes) + " nodes" : "nodes not recorded";
  char text[96];
  if (shape.kind == distribution::geometric_fixed) {
    std::snprintf(text, sizeof text, "geometric d=%d b=%g r=%d", shape.depth_limit, shape.root_branching,
                  shape.root_seed);
  } else {
    std::snprintf(text, sizeof text, "binomial b=%g q=%g m=%d r=%d", shape.root_branching,
                  shape.non_leaf_chance, shape.non_leaf_children, shape.root_seed);
  }
  return std::string(text) + ", " + nodes;
}

template <tree_id Id>
std::int64_t default_size(scale s) {
  return size_parameter_of(tree_at(Id, s).shape);
}

// Geometric trees grow about 4-fold per level of depth; binomial ones in proportion to the root's children,
// except that T3L's nodes have m q > 1 children on average, so a larger root risks a tree without end.
template <tree_id Id>
constexpr size_parameter geometric_size{"depth limit d", default_size<Id>, 1, 18};
template <tree_id Id>
constexpr size_parameter binomial_size{"root children b", default_size<Id>, 1, 1'000'000};
constexpr size_parameter t3l_size{"root children b", default_size<tree_id::t3l>, 1, 2'000};

// The XXL trees take minutes even on many cores: only at paper scale unless named.
const workload_registrar t1{{"T1", "libfork Table I (UTS)", "small geometric tree", 50,
                             geometric_size<tree_id::t1>, parameters<tree_id::t1>, every_scale}};
const workload_registrar t1l{{"T1L", "libfork Table I (UTS)", "large geometric tree", 51,
                              geometric_size<tree_id::t1l>, parameters<tree_id::t1l>, every_scale}};
const workload_registrar t1xxl{{"T1XXL", "libfork Table I (UTS)", "huge geometric tree", 52,
                                geometric_size<tree_id::t1xxl>, parameters<tree_id::t1xxl>,
                                paper_scale_only}};
const workload_registrar t3{{"T3", "libfork Table I (UTS)", "small binomial tree", 53,
                             binomial_size<tree_id::t3>, parameters<tree_id::t3>, every_scale}};
const workload_registrar t3l{{"T3L", "libfork Table I (UTS)", "large binomial tree", 54, t3l_size,
                              parameters<tree_id::t3l>, every_scale}};
const workload_registrar t3xxl{{"T3XXL", "libfork Table I (UTS)", "huge binomial tree", 55,
                                binomial_size<tree_id::t3xxl>, parameters<tree_id::t3xxl>, paper_scale_only}};

}  // namespace
}  // namespace fjb::uts
