#pragma once

#include <cstdint>
#include <string>

#include "registry.hpp"
#include "verify.hpp"

// Depth-first search of a balanced tree (seed 003: branching 9, depth 9): every inner node forks one
// task per child, so nearly all the time is task overhead. Nodes are numbered level by level (child c of
// node k is k * branching + c) and the search sums the numbers of the leaves, a total the optimiser cannot
// fold into a formula the way it can a plain count.
namespace fjb::dfs {

struct problem {
  int branching;
  int depth;
};

// Parallel versions keep the children's counts in a fixed array of this size.
inline constexpr int largest_branching = 16;

[[nodiscard]] constexpr problem problem_at(scale s) noexcept {
  return by_scale(s, problem{7, 6}, problem{9, 7}, problem{9, 9});
}

[[nodiscard]] constexpr std::uint64_t child_number(std::uint64_t parent, int branching, int child) noexcept {
  return parent * static_cast<std::uint64_t>(branching) + static_cast<std::uint64_t>(child);
}

// The leaves are numbered 0 .. branching^depth - 1, so their sum is L (L - 1) / 2 with L leaves.
[[nodiscard]] constexpr std::uint64_t sum_of_leaf_numbers(const problem& p) noexcept {
  std::uint64_t leaves = 1;
  for (int level = 0; level < p.depth; ++level) {
    leaves *= static_cast<std::uint64_t>(p.branching);
  }
  return leaves * (leaves - 1) / 2;
}

inline void verify(const problem& p, std::uint64_t computed) {
  expect_equal("dfs: sum of the leaf numbers of a " + std::to_string(p.branching) + "^" +
                   std::to_string(p.depth) + " tree",
               computed, sum_of_leaf_numbers(p));
}

}  // namespace fjb::dfs
