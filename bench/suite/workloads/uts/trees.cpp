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

}  // namespace

std::string_view tree_name(tree_id id) noexcept { return row_of(id).name; }

const tree_case& tree_at(tree_id id, scale s) noexcept {
  const auto& row = row_of(id);
  return *by_scale(s, &row.at[0], &row.at[1], &row.at[2]);
}

void verify(tree_id id, scale s, const tree_count& computed) {
  const tree_case& expected = tree_at(id, s);
  const std::string what = "UTS " + std::string(tree_name(id));
  expect_equal(what + " nodes", computed.nodes, expected.nodes);
  if (expected.leaves) {
    expect_equal(what + " leaves", computed.leaves, *expected.leaves);
  }
}

}  // namespace fjb::uts
