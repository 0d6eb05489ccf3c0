#pragma once

#include <array>
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

// Parallel versions keep the children's sums in a fixed array of this size.
inline constexpr int largest_branching = 16;
using child_sums = std::array<std::uint64_t, largest_branching>;

// A node's sum once its first `branching` children have stored theirs (the parallel versions' join).
[[nodiscard]] inline std::uint64_t sum_of_children(const child_sums& parts, int branching) noexcept {
  std::uint64_t total = 0;
  for (int child = 0; child < branching; ++child) {
    total += parts[static_cast<std::size_t>(child)];
  }
  return total;
}

[[nodiscard]] constexpr problem problem_at(scale s) noexcept {
  return by_scale(s, problem{7, 6}, problem{9, 7}, problem{9, 9});
}

// N is the depth; the branching is the scale's. At most 10, so that the leaves' sum fits in 64 bits.
[[nodiscard]] constexpr std::int64_t default_depth(scale s) noexcept { return problem_at(s).depth; }
inline constexpr size_parameter problem_size{"depth of the tree", default_depth, 1, 10};

[[nodiscard]] constexpr problem problem_at(const run_request& request) noexcept {
  return {problem_at(request.size).branching, static_cast<int>(request.n)};
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

// The OpenMP and TBB versions differ only in their search and measure it the same way on their team (an
// omp_team or a tbb_team: built with the worker count, `time(body)` runs the body on the team).
template <class Team, std::uint64_t (*Search)(int branching, int depth, std::uint64_t number)>
run_result run_on_team(const run_request& request) {
  const problem p = problem_at(request);
  Team team(request.workers);
  std::uint64_t answer = 0;
  const double seconds = team.time([&] { answer = Search(p.branching, p.depth, 0); });
  verify(p, answer);
  return {seconds};
}

}  // namespace fjb::dfs
