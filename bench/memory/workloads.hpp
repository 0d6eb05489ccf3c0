#pragma once
// The three workloads of fj-memory: recursive Fibonacci, a deep chain of nested forks, and a seeded
// unbalanced tree. Every task takes its depth in the task tree (the root is 1) so that the serial probe can
// report the deepest path in frames as well as in bytes.

#include <forkjoin/forkjoin.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fjm {

enum class workload { fib, chain, tree };

[[nodiscard]] std::string_view workload_name(workload w) noexcept;
[[nodiscard]] bool parse_workload(std::string_view text, workload& out) noexcept;

// Problem sizes: fib's n, the chain's depth, the tree's number of root subtrees.
struct sizes {
  int fib_n;
  int chain_depth;
  int tree_roots;
};

[[nodiscard]] int size_of(workload w, const sizes& s) noexcept;

// What the serial probe saw at the start of every task: the deepest stack in bytes (used_bytes() of the
// single stack the serial run uses, so each frame counted rounded up to the frame alignment) and in frames.
struct path_profile {
  std::size_t max_used_bytes = 0;
  std::size_t max_frames = 0;
};

// Turns the probe on for tasks started after this call. Call it before the pool is created, and only with a
// single-worker pool: the probe is written by that worker alone and read after sync_wait returns.
void enable_probe() noexcept;
[[nodiscard]] path_profile probe_result() noexcept;

fj::task<std::int64_t> fib(int n, int depth);
fj::task<std::int64_t> chain(int remaining, int depth);
fj::task<std::int64_t> forest(int first_root, int end_root, int depth);

// Runs workload `w` of size `size` as a root on `pool` and returns its answer.
template <class Pool>
std::int64_t run_workload(Pool& pool, workload w, int size) {
  switch (w) {
    case workload::fib: return fj::sync_wait(pool, fib, size, 1);
    case workload::chain: return fj::sync_wait(pool, chain, size, 1);
    case workload::tree: return fj::sync_wait(pool, forest, 0, size, 1);
  }
  return -1;
}

// The answer the workload must give, computed without tasks.
[[nodiscard]] std::int64_t expected_answer(workload w, int size);

}  // namespace fjm
