#include <cstdio>

#include "uts.hpp"

namespace fjb::uts {
namespace {

template <tree_id Id>
std::string parameters(scale s) {
  const tree_shape& shape = tree_at(Id, s).shape;
  char text[96];
  if (shape.kind == distribution::geometric_fixed) {
    std::snprintf(text, sizeof text, "geometric d=%d b=%g r=%d, %llu nodes", shape.depth_limit,
                  shape.root_branching, shape.root_seed,
                  static_cast<unsigned long long>(tree_at(Id, s).nodes));
  } else {
    std::snprintf(text, sizeof text, "binomial b=%g q=%g m=%d r=%d, %llu nodes", shape.root_branching,
                  shape.non_leaf_chance, shape.non_leaf_children, shape.root_seed,
                  static_cast<unsigned long long>(tree_at(Id, s).nodes));
  }
  return text;
}

// The XXL trees take minutes even on many cores: only at paper scale unless named.
const workload_registrar t1{
    {"T1", "libfork Table I (UTS)", "small geometric tree", 50, parameters<tree_id::t1>, every_scale}};
const workload_registrar t1l{
    {"T1L", "libfork Table I (UTS)", "large geometric tree", 51, parameters<tree_id::t1l>, every_scale}};
const workload_registrar t1xxl{{"T1XXL", "libfork Table I (UTS)", "huge geometric tree", 52,
                                parameters<tree_id::t1xxl>, paper_scale_only}};
const workload_registrar t3{
    {"T3", "libfork Table I (UTS)", "small binomial tree", 53, parameters<tree_id::t3>, every_scale}};
const workload_registrar t3l{
    {"T3L", "libfork Table I (UTS)", "large binomial tree", 54, parameters<tree_id::t3l>, every_scale}};
const workload_registrar t3xxl{{"T3XXL", "libfork Table I (UTS)", "huge binomial tree", 55,
                                parameters<tree_id::t3xxl>, paper_scale_only}};

}  // namespace
}  // namespace fjb::uts
