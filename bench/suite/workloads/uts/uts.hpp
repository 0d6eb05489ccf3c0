#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
  std::optional<std::uint64_t> nodes;   // unknown for a tree that --size made
  std::optional<std::uint64_t> leaves;  // not published for the XXL trees
};

[[nodiscard]] std::string_view tree_name(tree_id id) noexcept;

// The tree of `id` at a scale: the published tree at paper scale (and T1 and T3 at default scale too),
// otherwise a smaller tree of the same family (trees.cpp says where each count comes from).
[[nodiscard]] const tree_case& tree_at(tree_id id, scale s) noexcept;

// N for UTS (--size): the depth limit d of a geometric tree (T1, T1L, T1XXL), the number of the root's
// children b of a binomial tree (T3, T3L, T3XXL); the tree's other parameters are those at the scale.
[[nodiscard]] std::int64_t size_parameter_of(const tree_shape& shape) noexcept;

// The tree measured: the one at request.size with N = request.n, and its counts if they are recorded
// (trees.cpp) for a tree of that shape.
[[nodiscard]] tree_case tree_for(tree_id id, const run_request& request) noexcept;

[[nodiscard]] node root_of(const tree_shape& shape) noexcept;
[[nodiscard]] int child_count(const tree_shape& shape, const node& parent) noexcept;
[[nodiscard]] node child_of(const node& parent, int index) noexcept;

// Against the tree's recorded counts or, for a tree without them, a serial search run here (after timing).
void verify(tree_id id, const tree_case& tree, const tree_count& computed);

// What a node with children counts once the counts of its children's subtrees are in: itself plus them.
[[nodiscard]] inline tree_count inner_node_count(const std::vector<tree_count>& subtrees) noexcept {
  tree_count total{1, 0};
  for (const auto& subtree : subtrees) {
    total += subtree;
  }
  return total;
}

// The OpenMP and TBB versions differ only in their search and measure it the same way on their team (an
// omp_team or a tbb_team: built with the worker count, `time(body)` runs the body on the team).
template <class Team, tree_count (*Search)(const tree_shape&, const node&)>
run_result run_on_team(tree_id id, const run_request& request) {
  const tree_case tree = tree_for(id, request);
  const tree_shape& shape = tree.shape;
  Team team(request.workers);
  tree_count answer{};
  const double seconds = team.time([&] { answer = Search(shape, root_of(shape)); });
  verify(id, tree, answer);
  return {seconds};
}

// An implementation's measurement of one tree, registered for every tree by `tree_registrars`.
using tree_run_function = run_result (*)(tree_id, const run_request&);

// Registers `Run` as implementation `implementation` of each of the six trees.
template <tree_run_function Run>
class tree_registrars {
 public:
  explicit tree_registrars(std::string_view implementation) noexcept
      : t1_{tree_name(tree_id::t1), implementation, run_tree<tree_id::t1>},
        t1l_{tree_name(tree_id::t1l), implementation, run_tree<tree_id::t1l>},
        t1xxl_{tree_name(tree_id::t1xxl), implementation, run_tree<tree_id::t1xxl>},
        t3_{tree_name(tree_id::t3), implementation, run_tree<tree_id::t3>},
        t3l_{tree_name(tree_id::t3l), implementation, run_tree<tree_id::t3l>},
        t3xxl_{tree_name(tree_id::t3xxl), implementation, run_tree<tree_id::t3xxl>} {}

 private:
  // The registry takes plain function pointers, so the tree is fixed at compile time here.
  template <tree_id Id>
  static run_result run_tree(const run_request& request) {
    return Run(Id, request);
  }

  implementation_registrar t1_;
  implementation_registrar t1l_;
  implementation_registrar t1xxl_;
  implementation_registrar t3_;
  implementation_registrar t3l_;
  implementation_registrar t3xxl_;
};

}  // namespace fjb::uts
