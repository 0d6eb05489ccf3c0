#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "registry.hpp"
#include "sha1.hpp"
#include "verify.hpp"

// The unbalanced tree search benchmark (Olivier et al., "UTS: An Unbalanced Tree Search Benchmark", LCPC
// 2006) with the sample trees of the libfork paper's Table I. Nodes are generated on the fly: a node's
// state is a SHA-1 digest, a child's state is the digest of the parent's state and the child's index, and
// the number of children is drawn from the state. The node counts are the published ones.
namespace fjb::uts {

enum class tree_id { t1, t1l, t1xxl, t3, t3l, t3xxl };

enum class distribution { binomial, geometric_fixed };

struct tree_shape {
  distribution kind;
  double root_branching;   // b: children of the root (binomial) or the mean branching (geometric)
  int depth_limit;         // d: geometric trees stop here
  double non_leaf_chance;  // q: binomial trees: a node below the root has m children with this probability
  int non_leaf_children;   // m
  int root_seed;           // r
};

// What a search finds; compared against published or recorded counts.
struct tree_count {
  std::uint64_t nodes;
  std::uint64_t leaves;

  tree_count& operator+=(const tree_count& other) noexcept {
    nodes += other.nodes;
    leaves += other.leaves;
    return *this;
  }
};

struct node {
  sha1_digest state;
  int height;
};

struct tree_case {
  tree_shape shape;
  std::uint64_t nodes;
  std::optional<std::uint64_t> leaves;  // not published for the XXL trees
};

[[nodiscard]] std::string_view tree_name(tree_id id) noexcept;

// The tree measured for `id` at a scale: the published tree at paper scale (and T1 and T3 at default scale
// too), otherwise a smaller tree of the same family (trees.cpp says where each count comes from).
[[nodiscard]] const tree_case& tree_at(tree_id id, scale s) noexcept;

[[nodiscard]] node root_of(const tree_shape& shape) noexcept;
[[nodiscard]] int child_count(const tree_shape& shape, const node& parent) noexcept;
[[nodiscard]] node child_of(const node& parent, int index) noexcept;

void verify(tree_id id, scale s, const tree_count& computed);

}  // namespace fjb::uts
