#include <array>

#include "uts.hpp"

namespace fjb::uts {
namespace {

constexpr tree_shape geometric(int depth, int seed) {
  return {distribution::geometric_fixed, 4.0, depth, 0, 0, seed};
}

constexpr tree_shape binomial(double root_children, double q, int m, int seed) {
  return {distribution::binomial, root_children, 0, q, m, seed};
}

struct tree_row {
  tree_id id;
  std::string_view name;
  std::array<tree_case, 3> at;  // at scales quick, default, paper
};

// Paper scale: libfork's Table I, which uses the UTS sample trees; counts as published with UTS
// (sample_trees.sh). Below that, trees of the same family with a smaller depth, a smaller root or another
// seed, whose counts were recorded with this suite's serial search; that search reproduces every published
// count it was run on (T1, T1L, T3, T3L).
constexpr std::array trees{
    tree_row{tree_id::t1,
             "T1",
             {tree_case{geometric(7, 19), 63914, 51124}, tree_case{geometric(10, 19), 4130071, 3305118},
              tree_case{geometric(10, 19), 4130071, 3305118}}},
    tree_row{tree_id::t1l,
             "T1L",
             {tree_case{geometric(8, 29), 99379, 79695}, tree_case{geometric(10, 29), 1596447, 1277371},
              tree_case{geometric(13, 29), 102181082, 81746377}}},
    tree_row{tree_id::t1xxl,
             "T1XXL",
             {tree_case{geometric(8, 19), 257042, 205878}, tree_case{geometric(9, 19), 1031269, 825408},
              tree_case{geometric(15, 19), 4230646601, std::nullopt}}},
    tree_row{tree_id::t3,
             "T3",
             {tree_case{binomial(100, 0.124875, 8, 3), 58301, 51025},
              tree_case{binomial(2000, 0.124875, 8, 42), 4112897, 3599034},
              tree_case{binomial(2000, 0.124875, 8, 42), 4112897, 3599034}}},
    tree_row{tree_id::t3l,
             "T3L",
             {tree_case{binomial(200, 0.200014, 5, 9), 74401, 59560},
              tree_case{binomial(200, 0.200014, 5, 5), 2653726, 2123020},
              tree_case{binomial(2000, 0.200014, 5, 7), 111345631, 89076904}}},
    tree_row{tree_id::t3xxl,
             "T3XXL",
             {tree_case{binomial(100, 0.499995, 2, 3), 227175, 113637},
              tree_case{binomial(100, 0.499995, 2, 4), 3667877, 1833988},
              tree_case{binomial(2000, 0.499995, 2, 316), 2793220501, std::nullopt}}},
};

const tree_row& row_of(tree_id id) noexcept {
  for (const auto& row : trees) {
    if (row.id == id) {
      return row;
    }
  }
  return trees.front();
}

bool same_shape(const tree_shape& a, const tree_shape& b) noexcept {
  return a.kind == b.kind && a.root_branching == b.root_branching && a.depth_limit == b.depth_limit &&
         a.non_leaf_chance == b.non_leaf_chance && a.non_leaf_children == b.non_leaf_children &&
         a.root_seed == b.root_seed;
}

// The count of a tree without a recorded one: the serial search of serial.cpp, run after timing.
tree_count reference_search(const tree_shape& shape, const node& parent) {
  const int children = child_count(shape, parent);
  if (children == 0) {
    return {1, 1};
  }
  tree_count total{1, 0};
  for (int i = 0; i < children; ++i) {
    total += reference_search(shape, child_of(parent, i));
  }
  return total;
}

}  // namespace

std::string_view tree_name(tree_id id) noexcept { return row_of(id).name; }

const tree_case& tree_at(tree_id id, scale s) noexcept {
  const auto& row = row_of(id);
  return *by_scale(s, &row.at[0], &row.at[1], &row.at[2]);
}

std::int64_t size_parameter_of(const tree_shape& shape) noexcept {
  return shape.kind == distribution::geometric_fixed ? shape.depth_limit
                                                     : static_cast<std::int64_t>(shape.root_branching);
}

tree_case tree_for(tree_id id, const run_request& request) noexcept {
  tree_shape shape = tree_at(id, request.size).shape;
  if (shape.kind == distribution::geometric_fixed) {
    shape.depth_limit = static_cast<int>(request.n);
  } else {
    shape.root_branching = static_cast<double>(request.n);
  }
  for (const tree_case& recorded : row_of(id).at) {
    if (same_shape(recorded.shape, shape)) {
      return recorded;
    }
  }
  return {shape, std::nullopt, std::nullopt};
}

void verify(tree_id id, const tree_case& tree, const tree_count& computed) {
  std::string what = "UTS " + std::string(tree_name(id));
  tree_case expected = tree;
  if (!expected.nodes) {
    const tree_count counted = reference_search(tree.shape, root_of(tree.shape));
    expected.nodes = counted.nodes;
    expected.leaves = counted.leaves;
    what += " (against a serial search)";
  }
  expect_equal(what + " nodes", computed.nodes, *expected.nodes);
  if (expected.leaves) {
    expect_equal(what + " leaves", computed.leaves, *expected.leaves);
  }
}

}  // namespace fjb::uts
