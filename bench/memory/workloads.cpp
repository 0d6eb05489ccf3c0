#include "workloads.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace fjm {
namespace {

// Written before the pool's threads start (thread creation orders it with the workers' reads).
bool probe_on = false;
// Written only by the single worker of the probed run; read by the main thread after sync_wait has returned,
// which synchronizes with the root's completion.
path_profile profile;

[[gnu::cold, gnu::noinline]] void record(int depth) noexcept {
  // At a task's start, the serial run's single stack holds exactly the frames from the root to this task.
  profile.max_used_bytes = std::max(profile.max_used_bytes, fj::detail::tls_stack->used_bytes());
  profile.max_frames = std::max(profile.max_frames, static_cast<std::size_t>(depth));
}

inline void probe(int depth) noexcept {
  if (probe_on) [[unlikely]]
    record(depth);
}

// The unbalanced tree: a near-critical binomial Galton-Watson tree, as in UTS's binomial trees. A root
// subtree's first node always has k_tree_branching children; every other node has k_tree_branching children
// with probability k_tree_non_leaf_chance and none otherwise. The mean branching is 0.99, so subtrees are
// finite (about 400 nodes on average) but their depths vary widely. Node states come from a splittable
// hash, so the tree is the same on every run and every worker count.
constexpr int k_tree_branching = 4;
constexpr double k_tree_non_leaf_chance = 0.2475;
constexpr std::uint64_t k_tree_seed = 0x5eed0ff02c0ffeeULL;

// SplitMix64's finaliser: a bijective mix of 64 bits.
constexpr std::uint64_t mix(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

constexpr std::uint64_t root_state(int root) noexcept {
  return mix(k_tree_seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(root + 1));
}

constexpr std::uint64_t child_state(std::uint64_t parent, int index) noexcept {
  return mix(parent ^ (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(index + 1)));
}

int children_of(std::uint64_t state, int height) noexcept {
  if (height == 0) return k_tree_branching;
  // The top 53 bits as a uniform double in [0, 1).
  const double uniform = static_cast<double>(state >> 11) * 0x1.0p-53;
  return uniform < k_tree_non_leaf_chance ? k_tree_branching : 0;
}

fj::task<std::int64_t> tree(std::uint64_t state, int height, int depth) {
  probe(depth);
  const int kids = children_of(state, height);
  std::array<std::int64_t, k_tree_branching> counts{};
  for (int i = 0; i + 1 < kids; ++i) {
    co_await fj::fork(&counts[static_cast<std::size_t>(i)], tree, child_state(state, i), height + 1,
                      depth + 1);
  }
  if (kids > 0) {
    co_await fj::call(&counts[static_cast<std::size_t>(kids - 1)], tree, child_state(state, kids - 1),
                      height + 1, depth + 1);
  }
  co_await fj::join;
  std::int64_t nodes = 1;
  for (std::int64_t c : counts) nodes += c;
  co_return nodes;
}

fj::task<std::int64_t> chain_leaf(int depth) {
  probe(depth);
  co_return 1;
}

std::int64_t tree_nodes_serially(int roots) {
  struct pending {
    std::uint64_t state;
    int height;
  };
  std::vector<pending> todo;
  std::int64_t nodes = 0;
  for (int r = 0; r < roots; ++r) {
    todo.push_back({root_state(r), 0});
    while (!todo.empty()) {
      const pending p = todo.back();
      todo.pop_back();
      ++nodes;
      const int kids = children_of(p.state, p.height);
      for (int i = 0; i < kids; ++i) todo.push_back({child_state(p.state, i), p.height + 1});
    }
  }
  return nodes;
}

}  // namespace

std::string_view workload_name(workload w) noexcept {
  switch (w) {
    case workload::fib: return "fib";
    case workload::chain: return "chain";
    case workload::tree: return "tree";
  }
  return "?";
}

bool parse_workload(std::string_view text, workload& out) noexcept {
  for (workload w : {workload::fib, workload::chain, workload::tree}) {
    if (text == workload_name(w)) {
      out = w;
      return true;
    }
  }
  return false;
}

int size_of(workload w, const sizes& s) noexcept {
  switch (w) {
    case workload::fib: return s.fib_n;
    case workload::chain: return s.chain_depth;
    case workload::tree: return s.tree_roots;
  }
  return 0;
}

void enable_probe() noexcept {
  probe_on = true;
  profile = {};
}

path_profile probe_result() noexcept { return profile; }

fj::task<std::int64_t> fib(int n, int depth) {
  probe(depth);
  if (n < 2) co_return n;
  std::int64_t a = 0;
  std::int64_t b = 0;
  co_await fj::fork(&a, fib, n - 1, depth + 1);
  co_await fj::call(&b, fib, n - 2, depth + 1);
  co_await fj::join;
  co_return a + b;
}

// One level forks the rest of the chain, then calls a leaf: a thief that steals the level's continuation
// runs the leaf on its own stack and then waits at the join, so the chain has steals at every depth.
fj::task<std::int64_t> chain(int remaining, int depth) {
  probe(depth);
  if (remaining == 0) co_return 0;
  std::int64_t rest = 0;
  std::int64_t leaf = 0;
  co_await fj::fork(&rest, chain, remaining - 1, depth + 1);
  co_await fj::call(&leaf, chain_leaf, depth + 1);
  co_await fj::join;
  co_return rest + leaf;
}

// Splits the root subtrees [first_root, end_root) in halves: a balanced fork tree above the unbalanced ones.
fj::task<std::int64_t> forest(int first_root, int end_root, int depth) {
  probe(depth);
  if (end_root - first_root == 1) {
    std::int64_t nodes = 0;
    co_await fj::call(&nodes, tree, root_state(first_root), 0, depth + 1);
    co_return nodes;
  }
  const int middle = first_root + (end_root - first_root) / 2;
  std::int64_t left = 0;
  std::int64_t right = 0;
  co_await fj::fork(&left, forest, first_root, middle, depth + 1);
  co_await fj::call(&right, forest, middle, end_root, depth + 1);
  co_await fj::join;
  co_return left + right;
}

std::int64_t expected_answer(workload w, int size) {
  switch (w) {
    case workload::fib: {
      std::int64_t a = 0;
      std::int64_t b = 1;
      for (int i = 0; i < size; ++i) {
        const std::int64_t next = a + b;
        a = b;
        b = next;
      }
      return a;
    }
    case workload::chain: return size;
    case workload::tree: return tree_nodes_serially(size);
  }
  return -1;
}

}  // namespace fjm
