// Stress: random fork/call/join trees, each node's value checked against a serial evaluation of the same
// tree, at 1, 2, 4, 8 and 16 workers (oversubscribed on small machines). The tree is a pure function of a
// seed: every node derives its shape (children, fork or call for each, where the joins go, whether it joins
// before returning) from a hash of its id.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "support/test_config.hpp"

namespace {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

struct node_shape {
  int children;
  std::uint64_t bits;  // per child: bit 2i = fork (else call), bit 2i+1 = join right after this child
  bool join_at_end;    // else return without a join: implicit join
};

node_shape shape_of(std::uint64_t id, int depth) {
  std::uint64_t const h = mix(id);
  int const children = depth <= 0 ? 0 : static_cast<int>(h % 5);  // 0..4
  return {children, mix(h), (h >> 8) % 4 != 0};
}

std::uint64_t child_id(std::uint64_t id, int i) { return mix(id * 31 + static_cast<std::uint64_t>(i) + 1); }

// Each node also does a little work of its own, so that a tree takes long enough for thieves to find work.
std::uint64_t combine(std::uint64_t id, const std::uint64_t* r, int n) {
  std::uint64_t acc = id;
  for (int i = 0; i < n; ++i) acc = mix(acc ^ r[i]);
  for (int k = 0; k < 64; ++k) acc = mix(acc);
  return acc;
}

std::uint64_t serial_tree(std::uint64_t id, int depth) {
  node_shape const s = shape_of(id, depth);
  std::uint64_t r[4] = {};
  for (int i = 0; i < s.children; ++i) r[i] = serial_tree(child_id(id, i), depth - 1);
  return combine(id, r, s.children);
}

fj::task<void> parallel_tree(std::uint64_t id, int depth, std::uint64_t* out);

// Starts every child of a node as its shape says and returns without a join: the implicit join must finish
// them all before the caller's fj::call returns.
fj::task<void> children_without_join(std::uint64_t id, int depth, node_shape s, std::uint64_t* r) {
  for (int i = 0; i < s.children; ++i) {
    if ((s.bits >> (2 * i)) & 1) {
      co_await fj::fork(parallel_tree, child_id(id, i), depth - 1, &r[i]);
    } else {
      co_await fj::call(parallel_tree, child_id(id, i), depth - 1, &r[i]);
    }
  }
}

// Results are written into a caller-provided slot, as a node without its own join could not return them.
fj::task<void> parallel_tree(std::uint64_t id, int depth, std::uint64_t* out) {
  node_shape const s = shape_of(id, depth);
  std::uint64_t r[4] = {};
  if (!s.join_at_end) {
    co_await fj::call(children_without_join, id, depth, s, r);
    *out = combine(id, r, s.children);
    co_return;
  }
  for (int i = 0; i < s.children; ++i) {
    if ((s.bits >> (2 * i)) & 1) {
      co_await fj::fork(parallel_tree, child_id(id, i), depth - 1, &r[i]);
    } else {
      co_await fj::call(parallel_tree, child_id(id, i), depth - 1, &r[i]);
    }
    if ((s.bits >> (2 * i + 1)) & 1) co_await fj::join;
  }
  co_await fj::join;
  *out = combine(id, r, s.children);
}

fj::task<void> implicit_join_scope(std::uint64_t id, int depth, std::uint64_t* out, int width) {
  // Forks `width` subtrees and returns without joining: the parent's call returns only after all finish.
  for (int i = 0; i < width; ++i) co_await fj::fork(parallel_tree, child_id(id, i), depth, &out[i]);
}

fj::task<std::uint64_t> run_tree(std::uint64_t id, int depth) {
  std::uint64_t subtrees[4] = {};
  co_await fj::call(implicit_join_scope, id, depth, subtrees, 4);
  co_return combine(id, subtrees, 4);
}

std::uint64_t serial_run(std::uint64_t id, int depth) {
  std::uint64_t subtrees[4] = {};
  for (int i = 0; i < 4; ++i) subtrees[i] = serial_tree(child_id(id, i), depth);
  return combine(id, subtrees, 4);
}

enum class pool_kind { busy, lazy };

struct tree_run {
  pool_kind kind;
  std::size_t workers;
};

template <class Pool>
void check_random_trees(Pool& pool, const char* kind) {
  int const trees = static_cast<int>(fj::test::scaled(100, 25));
  int const depth = fj::test::scale() == 1 ? 11 : 9;
  std::uint64_t const seed = fj::test::seed();
  int mismatches = 0;
  for (int t = 0; t < trees; ++t) {
    std::uint64_t const id = mix(seed + static_cast<std::uint64_t>(t));
    if (fj::sync_wait(pool, run_tree, id, depth) != serial_run(id, depth)) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0) << "seed " << seed;
  std::uint64_t steals = 0;
  for (const auto& s : pool.stats()) steals += s.steals;
  std::printf("[random trees] %s workers=%zu trees=%d depth=%d steals=%llu\n", kind, pool.size(), trees,
              depth, static_cast<unsigned long long>(steals));
  if (pool.size() > 1) {
    EXPECT_GT(steals, 0u) << "no steals: this run proved nothing about concurrency";
  }
}

class RandomTrees : public ::testing::TestWithParam<tree_run> {};

TEST_P(RandomTrees, EveryTreeMatchesItsSerialEvaluation) {
  tree_run const run = GetParam();
  if (run.kind == pool_kind::busy) {
    fj::busy_pool pool(run.workers);
    check_random_trees(pool, "busy_pool");
  } else {
    fj::lazy_pool pool(run.workers);
    check_random_trees(pool, "lazy_pool");
  }
}

INSTANTIATE_TEST_SUITE_P(Pools, RandomTrees,
                         ::testing::Values(tree_run{pool_kind::busy, 1}, tree_run{pool_kind::busy, 2},
                                           tree_run{pool_kind::busy, 4}, tree_run{pool_kind::busy, 8},
                                           tree_run{pool_kind::busy, 16}, tree_run{pool_kind::lazy, 1},
                                           tree_run{pool_kind::lazy, 2}, tree_run{pool_kind::lazy, 4},
                                           tree_run{pool_kind::lazy, 8}, tree_run{pool_kind::lazy, 16}),
                         [](const ::testing::TestParamInfo<tree_run>& param_info) {
                           tree_run const r = param_info.param;
                           return std::string(r.kind == pool_kind::busy ? "busy" : "lazy") +
                                  std::to_string(r.workers);
                         });

// Many outside threads submit random trees to one pool at once.
TEST(RandomTreesConcurrentRoots, TreesSubmittedFromSeveralThreadsAllMatch) {
  fj::busy_pool pool(4);
  int const per_thread = static_cast<int>(fj::test::scaled(8, 2));
  std::uint64_t const seed = fj::test::seed();
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        std::uint64_t const id = mix(seed ^ static_cast<std::uint64_t>(t * 1000 + i));
        if (fj::sync_wait(pool, run_tree, id, 7) != serial_run(id, 7)) mismatches.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
