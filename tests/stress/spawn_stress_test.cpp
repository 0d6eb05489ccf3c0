// Stress for plain spawns (fj::scope, docs/protocols/spawn.md): random spawn trees mixed with coroutine
// tasks, every node checked against a serial evaluation of the same tree, at 1, 2, 3, 4, 8 and 16 workers on
// busy and lazy pools (oversubscribed on purpose on small machines); deep spawn chains on 128 KiB OS stacks
// (the stack bound of spawn.md "The stack bound"); and, in the test_spawn_stress_test_injected build
// (FJ_FAULT_INJECTION=1, tests/CMakeLists.txt), allocation failures at random spawns and forks. A second
// program built from this file runs with the chaos hooks on (FJ_CHAOS_SEED picks them).
//
// A tree is a pure function of its id and its parameters, as in random_tree_test.cpp. A node is either plain
// (a function with an fj::scope: each child spawned or called directly, syncs after random children) or a
// coroutine task (children forked or called as tasks, or plain children called directly from its body, which
// then spawn on whatever worker runs the task). Plain nodes' children are plain. Failures, all deterministic
// in which nodes run and which fail, so that the serial evaluation predicts them exactly:
//   - a plain leaf may throw;
//   - an inner plain node either catches its children's exceptions at its syncs (and at its direct calls) or
//     lets them propagate, ending the node;
//   - an inner plain node may throw from its body before its last sync, with children pending: the scope's
//     destructor syncs them and drops their exceptions.
// A child that failed leaves its result slot as it was, and the parent's value depends on which slots were
// written, so a lost or extra exception changes the parent's value. Each sync at which k > 0 children had
// thrown rethrows one and drops k - 1 (counted in worker_stats::exceptions_dropped); a destructor that drops
// the scope's kept exception makes that k. The serial evaluation counts the same, and the pool's statistics
// must agree; so must the number of exceptions the nodes caught. Coroutine nodes never throw (they catch
// around their plain calls).

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>

#include "support/mix.hpp"
#include "support/test_config.hpp"
#include "support/watchdog.hpp"

namespace {

using fj::test::mix;

constexpr int k_max_children = 6;

struct tree_params {
  int depth = 0;
  int min_children = 0;
  int max_children = 0;
  unsigned spawn_in_8 = 0;        // a plain node's child is spawned (else called directly)
  unsigned sync_in_8 = 0;         // a plain node syncs right after a child
  unsigned task_in_8 = 0;         // a coroutine node's child is a coroutine node (else a plain one)
  unsigned fork_in_8 = 0;         // a coroutine child is forked (else called)
  unsigned throw_in_64 = 0;       // a plain leaf throws
  unsigned catch_in_8 = 0;        // an inner plain node catches its children's exceptions
  unsigned body_throw_in_64 = 0;  // an inner plain node throws before its last sync
  bool task_root = false;

  [[nodiscard]] std::string describe() const {
    return "depth=" + std::to_string(depth) + " children=" + std::to_string(min_children) + ".." +
           std::to_string(max_children) + " spawn=" + std::to_string(spawn_in_8) +
           "/8 sync=" + std::to_string(sync_in_8) + "/8 task=" + std::to_string(task_in_8) +
           "/8 fork=" + std::to_string(fork_in_8) + "/8 throw=" + std::to_string(throw_in_64) +
           "/64 catch=" + std::to_string(catch_in_8) + "/8 body_throw=" + std::to_string(body_throw_in_64) +
           "/64 root=" + (task_root ? "task" : "plain");
  }
};

std::uint64_t node_budget() { return fj::test::scaled(6000, 2000); }

int depth_for(double mean, std::uint64_t budget, int cap) {
  if (mean <= 1.0) return cap;
  int depth = 0;
  double level = 1.0;
  double total = 1.0;
  while (depth < cap && total + level * mean <= static_cast<double>(budget)) {
    level *= mean;
    total += level;
    ++depth;
  }
  return std::max(depth, 1);
}

tree_params draw_params(std::uint64_t h) {
  tree_params p;
  switch (h % 4) {
    case 0:  // bushy
      p.min_children = 0;
      p.max_children = 3 + static_cast<int>((h >> 4) % 4);
      break;
    case 1:  // chain-like
      p.min_children = 1;
      p.max_children = 1 + static_cast<int>((h >> 4) % 2);
      break;
    case 2:  // binary
      p.min_children = 2;
      p.max_children = 2;
      break;
    default:
      p.min_children = static_cast<int>((h >> 4) % 3);
      p.max_children = p.min_children + static_cast<int>((h >> 6) % 4);
      break;
  }
  double const mean = (p.min_children + p.max_children) / 2.0;
  // Chains recurse on the OS stack (plain calls): 300 levels fit the default 8 MiB worker stacks in every
  // build; the 128 KiB case is DeepSpawns below.
  int const cap = p.max_children <= 1 ? 300 : 30;
  p.depth = std::max(1, depth_for(mean, node_budget(), cap) - static_cast<int>((h >> 9) % 3));
  p.spawn_in_8 = 2 + static_cast<unsigned>((h >> 12) % 7);  // 2..8: mostly spawned
  p.sync_in_8 = static_cast<unsigned>((h >> 16) % 9) / 2;
  p.task_in_8 = static_cast<unsigned>((h >> 20) % 9);
  p.fork_in_8 = static_cast<unsigned>((h >> 24) % 9);
  p.throw_in_64 = static_cast<unsigned>((h >> 28) % 4) * 2;  // 0, 2, 4 or 6 in 64
  p.catch_in_8 = static_cast<unsigned>((h >> 32) % 9);
  p.body_throw_in_64 = static_cast<unsigned>((h >> 36) % 3);
  p.task_root = (h >> 40) % 2 == 0;
  return p;
}

struct node_shape {
  int children = 0;
  std::uint32_t spawn_bits = 0;
  std::uint32_t sync_bits = 0;
  std::uint32_t task_bits = 0;
  std::uint32_t fork_bits = 0;
  bool leaf_throws = false;
  bool catches = false;
  bool body_throws = false;
  int work = 0;
};

node_shape shape_of(const tree_params& p, std::uint64_t id, int depth) {
  std::uint64_t const h = mix(id);
  std::uint64_t const g = mix(h);
  node_shape s;
  if (depth > 0) {
    s.children = p.min_children +
                 static_cast<int>(h % static_cast<std::uint64_t>(p.max_children - p.min_children + 1));
  }
  for (int i = 0; i < s.children; ++i) {
    std::uint64_t const r = mix(g + static_cast<std::uint64_t>(i));
    std::uint32_t const bit = std::uint32_t{1} << i;
    if (r % 8 < p.spawn_in_8) s.spawn_bits |= bit;
    if ((r >> 8) % 8 < p.sync_in_8) s.sync_bits |= bit;
    if ((r >> 16) % 8 < p.task_in_8) s.task_bits |= bit;
    if ((r >> 24) % 8 < p.fork_in_8) s.fork_bits |= bit;
  }
  s.leaf_throws = s.children == 0 && (h >> 20) % 64 < p.throw_in_64;
  s.catches = (h >> 28) % 8 < p.catch_in_8;
  s.body_throws = s.children > 0 && (h >> 36) % 64 < p.body_throw_in_64;
  s.work = 64 + static_cast<int>((h >> 44) % 256);  // enough that thieves find children to take
  return s;
}

std::uint64_t child_id(std::uint64_t id, int i) { return mix(id * 31 + static_cast<std::uint64_t>(i) + 1); }

struct node_value {
  std::uint64_t hash = 0;
  std::uint64_t nodes = 0;
  friend bool operator==(const node_value&, const node_value&) = default;
};

// A failed child's slot keeps {0, 0}, which changes the hash as a written value would not.
node_value combine(std::uint64_t id, const node_value* r, int n, int work) {
  node_value v{id, 1};
  for (int i = 0; i < n; ++i) {
    v.hash = mix(v.hash ^ r[i].hash ^ (static_cast<std::uint64_t>(i) << 56));
    v.nodes += r[i].nodes;
  }
  for (int k = 0; k < work; ++k) v.hash = mix(v.hash);
  return v;
}

struct tree_error : std::runtime_error {
  explicit tree_error(std::uint64_t node) : std::runtime_error("tree_error"), id(node) {}
  std::uint64_t id;
};

// ---- the serial evaluation ----

struct serial_tree {
  const tree_params* params = nullptr;
  std::unordered_map<std::uint64_t, node_value> values;  // every node that completed, by id
  std::uint64_t nodes_run = 0;
  std::uint64_t dropped = 0;  // exceptions the syncs and destructors drop
  std::uint64_t caught = 0;   // exceptions the nodes catch

  std::optional<node_value> plain(std::uint64_t id, int depth) {
    ++nodes_run;
    node_shape const s = shape_of(*params, id, depth);
    if (s.leaf_throws) return std::nullopt;
    node_value r[k_max_children] = {};
    std::uint64_t pending_failed = 0;  // spawned children that threw since the last sync
    // A sync: rethrows one of the pending exceptions (the node fails unless it catches), drops the rest.
    auto sync = [&]() -> bool {
      bool const threw = pending_failed > 0;
      if (threw) dropped += pending_failed - 1;
      if (threw && s.catches) ++caught;
      pending_failed = 0;
      return !threw || s.catches;
    };
    for (int i = 0; i < s.children; ++i) {
      std::optional<node_value> const c = plain(child_id(id, i), depth - 1);
      if (c) r[i] = *c;
      if (!c && ((s.spawn_bits >> i) & 1) != 0) ++pending_failed;
      if (!c && ((s.spawn_bits >> i) & 1) == 0 && s.catches) ++caught;
      if (!c && ((s.spawn_bits >> i) & 1) == 0 && !s.catches) {
        dropped += pending_failed;  // the destructor syncs the pending children during unwinding
        return std::nullopt;
      }
      if (((s.sync_bits >> i) & 1) != 0 && !sync()) return std::nullopt;
    }
    if (s.body_throws) {
      dropped += pending_failed;
      return std::nullopt;
    }
    if (!sync()) return std::nullopt;
    node_value const v = combine(id, r, s.children, s.work);
    values.emplace(id, v);
    return v;
  }

  node_value task(std::uint64_t id, int depth) {
    ++nodes_run;
    node_shape const s = shape_of(*params, id, depth);
    node_value r[k_max_children] = {};
    for (int i = 0; i < s.children; ++i) {
      if (((s.task_bits >> i) & 1) != 0) {
        r[i] = task(child_id(id, i), depth - 1);
      } else if (std::optional<node_value> const c = plain(child_id(id, i), depth - 1)) {
        r[i] = *c;
      } else {
        ++caught;
      }
    }
    node_value const v = combine(id, r, s.children, s.work);
    values.emplace(id, v);
    return v;
  }
};

// ---- the parallel evaluation ----

struct tree_context {
  tree_params params;
  const std::unordered_map<std::uint64_t, node_value>* expected = nullptr;
  // relaxed: event counts, read after the tree's sync_wait returned (which orders them).
  mutable std::atomic<std::uint64_t> nodes_run{0};
  mutable std::atomic<std::uint64_t> caught{0};
  mutable std::atomic<std::uint64_t> mismatches{0};
  mutable std::atomic<std::uint64_t> first_bad_id{0};

  void note_caught() const { caught.fetch_add(1, std::memory_order_relaxed); }

  void check(std::uint64_t id, const node_value& v) const {
    auto const it = expected->find(id);
    if (it == expected->end() || it->second != v) {
      if (mismatches.fetch_add(1, std::memory_order_relaxed) == 0) {
        first_bad_id.store(id, std::memory_order_relaxed);
      }
    }
  }
};

void sync_children(const tree_context* ctx, fj::scope& scope, bool catches) {
  if (!catches) {
    scope.sync();
    return;
  }
  try {
    scope.sync();
  } catch (const tree_error&) {
    ctx->note_caught();
  }
}

node_value plain_node(const tree_context* ctx, std::uint64_t id, int depth) {
  ctx->nodes_run.fetch_add(1, std::memory_order_relaxed);
  node_shape const s = shape_of(ctx->params, id, depth);
  if (s.leaf_throws) throw tree_error(id);
  node_value r[k_max_children] = {};
  {
    fj::scope scope;
    for (int i = 0; i < s.children; ++i) {
      if (((s.spawn_bits >> i) & 1) != 0) {
        // child_id(...) and depth - 1 are prvalues, moved into the record; ctx is this frame's parameter,
        // kept by reference, and lives until the scope has synced.
        scope.spawn(&r[i], plain_node, ctx, child_id(id, i), depth - 1);
      } else if (s.catches) {
        try {
          r[i] = plain_node(ctx, child_id(id, i), depth - 1);
        } catch (const tree_error&) {
          ctx->note_caught();
        }
      } else {
        r[i] = plain_node(ctx, child_id(id, i), depth - 1);
      }
      if (((s.sync_bits >> i) & 1) != 0) sync_children(ctx, scope, s.catches);
    }
    if (s.body_throws) throw tree_error(id);
    sync_children(ctx, scope, s.catches);
  }
  node_value const v = combine(id, r, s.children, s.work);
  ctx->check(id, v);
  return v;
}

fj::task<node_value> task_node(const tree_context* ctx, std::uint64_t id, int depth) {
  ctx->nodes_run.fetch_add(1, std::memory_order_relaxed);
  node_shape const s = shape_of(ctx->params, id, depth);
  node_value r[k_max_children] = {};
  for (int i = 0; i < s.children; ++i) {
    if (((s.task_bits >> i) & 1) == 0) {
      // A plain function that spawns, called from a task (on whichever worker runs the task now).
      try {
        r[i] = plain_node(ctx, child_id(id, i), depth - 1);
      } catch (const tree_error&) {
        ctx->note_caught();
      }
    } else if (((s.fork_bits >> i) & 1) != 0) {
      co_await fj::fork(&r[i], task_node, ctx, child_id(id, i), depth - 1);
    } else {
      co_await fj::call(&r[i], task_node, ctx, child_id(id, i), depth - 1);
    }
  }
  co_await fj::join;
  node_value const v = combine(id, r, s.children, s.work);
  ctx->check(id, v);
  co_return v;
}

// ---- figures ----

struct figures {
  std::uint64_t trees = 0;
  std::uint64_t failed_trees = 0;
  std::uint64_t nodes = 0;
  std::uint64_t roots_threw = 0;
  std::uint64_t dropped = 0;
  std::uint64_t steals = 0;
  std::uint64_t steals_at_sync = 0;
  std::uint64_t multi_worker_trees = 0;
};

figures& totals() {
  static figures f;
  return f;
}

template <class Pool>
fj::worker_stats summed(const Pool& pool) {
  fj::worker_stats sum;
  for (const auto& w : pool.stats()) {
    sum.steals += w.steals;
    sum.steals_at_sync += w.steals_at_sync;
    sum.exceptions_dropped += w.exceptions_dropped;
  }
  return sum;
}

class print_figures : public ::testing::Environment {
 public:
  void TearDown() override {
    const figures& f = totals();
    if (f.trees == 0) return;
    std::printf(
        "[spawn trees] figures: trees=%llu nodes=%llu roots that threw=%llu exceptions dropped=%llu "
        "steals=%llu steals at sync=%llu (over %llu trees on multi-worker pools) chaos=%s\n",
        static_cast<unsigned long long>(f.trees), static_cast<unsigned long long>(f.nodes),
        static_cast<unsigned long long>(f.roots_threw), static_cast<unsigned long long>(f.dropped),
        static_cast<unsigned long long>(f.steals), static_cast<unsigned long long>(f.steals_at_sync),
        static_cast<unsigned long long>(f.multi_worker_trees), fj::test::chaos ? "on" : "off");
    // steals at sync (leapfrog.hpp's take-backs) are printed, not required: how many a run makes depends on
    // timing (a sanitized run made none, once); tests/unit/scope_test.cpp forces one.
    std::printf("[spawn trees] %llu passed, %llu failed\n",
                static_cast<unsigned long long>(f.trees - f.failed_trees),
                static_cast<unsigned long long>(f.failed_trees));
    if (f.multi_worker_trees > 0) {
      EXPECT_GT(f.steals, 0u)
          << "no steals on any multi-worker pool: the runs proved nothing about concurrency";
    }
  }
};

::testing::Environment* register_figures_printer() noexcept {
  return ::testing::AddGlobalTestEnvironment(new (std::nothrow) print_figures);
}
[[maybe_unused]] ::testing::Environment* const figures_printer = register_figures_printer();

struct tree_outcome {
  bool ok = true;
  bool root_threw = false;
  std::uint64_t nodes = 0;
  std::uint64_t dropped = 0;
};

// Runs one tree drawn from `tree_seed` on `pool` and checks every node, the root's outcome, the number of
// nodes that ran and the number of exceptions dropped.
template <class Pool>
tree_outcome run_one_tree(Pool& pool, std::uint64_t tree_seed, const std::string& label) {
  tree_context ctx;
  ctx.params = draw_params(mix(tree_seed));
  serial_tree serial;
  serial.params = &ctx.params;
  std::uint64_t const root = mix(tree_seed ^ 0x5A5A5A5AULL);
  std::optional<node_value> const want = ctx.params.task_root
                                             ? std::optional(serial.task(root, ctx.params.depth))
                                             : serial.plain(root, ctx.params.depth);
  ctx.expected = &serial.values;

  std::uint64_t const dropped_before = summed(pool).exceptions_dropped;
  std::optional<node_value> got;
  bool root_threw = false;
  bool wrong_exception = false;
  try {
    if (ctx.params.task_root) {
      got = fj::sync_wait(pool, task_node, &ctx, root, ctx.params.depth);
    } else {
      got = fj::sync_wait(pool, plain_node, &ctx, root, ctx.params.depth);
    }
  } catch (const tree_error&) {
    root_threw = true;
  } catch (...) {
    wrong_exception = true;
  }
  std::uint64_t const dropped = summed(pool).exceptions_dropped - dropped_before;

  tree_outcome out;
  out.nodes = serial.nodes_run;
  out.root_threw = root_threw;
  out.dropped = dropped;
  // relaxed: ordered by the sync_wait.
  std::uint64_t const mismatches = ctx.mismatches.load(std::memory_order_relaxed);
  std::uint64_t const nodes_run = ctx.nodes_run.load(std::memory_order_relaxed);
  std::uint64_t const caught = ctx.caught.load(std::memory_order_relaxed);
  out.ok = mismatches == 0 && got == want && root_threw == !want && !wrong_exception &&
           nodes_run == serial.nodes_run && dropped == serial.dropped && caught == serial.caught;
  EXPECT_TRUE(out.ok) << label << ": " << mismatches << " node value(s) differ (first "
                      << ctx.first_bad_id.load(std::memory_order_relaxed) << "); root "
                      << (got == want ? "as expected" : "differs")
                      << (wrong_exception ? " (wrong exception)" : "") << "; nodes run " << nodes_run
                      << " of " << serial.nodes_run << "; exceptions dropped " << dropped << ", serial "
                      << serial.dropped << "; caught " << caught << ", serial " << serial.caught << "; tree "
                      << ctx.params.describe() << "; rerun with FJ_TEST_SEED=" << fj::test::seed();
  return out;
}

enum class pool_kind { busy, lazy };

struct tree_run {
  pool_kind kind;
  std::size_t workers;
};

std::string name_of(tree_run r) {
  return std::string(r.kind == pool_kind::busy ? "busy" : "lazy") + std::to_string(r.workers);
}

constexpr tree_run k_runs[] = {
    {pool_kind::busy, 1}, {pool_kind::busy, 2},  {pool_kind::busy, 3}, {pool_kind::busy, 4},
    {pool_kind::busy, 8}, {pool_kind::busy, 16}, {pool_kind::lazy, 1}, {pool_kind::lazy, 2},
    {pool_kind::lazy, 3}, {pool_kind::lazy, 4},  {pool_kind::lazy, 8}, {pool_kind::lazy, 16},
};

template <class Pool>
void check_random_trees(Pool& pool, tree_run run, std::size_t config_index) {
  fj::test::watchdog dog;
  std::uint64_t const seed = fj::test::seed();
  std::string const name = name_of(run);
  fj::worker_stats const before = summed(pool);
  figures here;
  std::uint64_t const trees = fj::test::scaled(40, 16);
  // A loaded machine can run a few small trees without one steal; rather than fail a configuration that
  // proved nothing yet, run up to four times as many trees until one is stolen from.
  std::uint64_t const most_trees = run.workers > 1 ? 4 * trees : trees;
  auto const stolen = [&] { return summed(pool).steals != before.steals; };
  for (std::uint64_t t = 0; t < trees || (t < most_trees && !stolen()); ++t) {
    std::uint64_t const tree_seed = mix(seed + 7919 * config_index + t);
    std::string const label =
        name + " tree " + std::to_string(t) + " (FJ_TEST_SEED=" + std::to_string(seed) + ")";
    auto const watch = dog.watch(label, [&] {
      return "pool: " + fj::test::describe_pool(pool) + "tree: " + draw_params(mix(tree_seed)).describe();
    });
    tree_outcome const o = run_one_tree(pool, tree_seed, label);
    ++here.trees;
    if (!o.ok) ++here.failed_trees;
    if (o.root_threw) ++here.roots_threw;
    here.nodes += o.nodes;
    here.dropped += o.dropped;
  }
  fj::worker_stats const after = summed(pool);
  here.steals = after.steals - before.steals;
  here.steals_at_sync = after.steals_at_sync - before.steals_at_sync;
  if (run.workers > 1) here.multi_worker_trees = here.trees;
  std::printf(
      "[spawn trees] %s: trees=%llu nodes=%llu roots threw=%llu dropped=%llu steals=%llu steals at "
      "sync=%llu\n",
      name.c_str(), static_cast<unsigned long long>(here.trees), static_cast<unsigned long long>(here.nodes),
      static_cast<unsigned long long>(here.roots_threw), static_cast<unsigned long long>(here.dropped),
      static_cast<unsigned long long>(here.steals), static_cast<unsigned long long>(here.steals_at_sync));
  if (run.workers > 1) {
    EXPECT_GT(here.steals, 0u) << name
                               << ": no steals, so this configuration proved nothing about concurrency";
  }
  figures& f = totals();
  f.trees += here.trees;
  f.failed_trees += here.failed_trees;
  f.nodes += here.nodes;
  f.roots_threw += here.roots_threw;
  f.dropped += here.dropped;
  f.steals += here.steals;
  f.steals_at_sync += here.steals_at_sync;
  f.multi_worker_trees += here.multi_worker_trees;
}

class SpawnTrees : public ::testing::TestWithParam<std::size_t> {};

TEST_P(SpawnTrees, EveryNodeMatchesTheSerialEvaluation) {
  if (fj::detail::k_fault_injection) GTEST_SKIP() << "the fault-injection build runs SpawnFaults only";
  std::size_t const index = GetParam();
  tree_run const run = k_runs[index];
  if (run.kind == pool_kind::busy) {
    fj::busy_pool pool(run.workers);
    check_random_trees(pool, run, index);
  } else {
    fj::lazy_pool pool(run.workers);
    check_random_trees(pool, run, index);
  }
}

INSTANTIATE_TEST_SUITE_P(Pools, SpawnTrees, ::testing::Range<std::size_t>(0, std::size(k_runs)),
                         [](const ::testing::TestParamInfo<std::size_t>& param_info) {
                           return name_of(k_runs[param_info.param]);
                         });

// ---- parallel_invoke trees ----
//
// fj::parallel_invoke keeps its records in its own frame and calls a child it pops back directly
// (parallel_invoke.hpp); a stolen child goes through the scope protocol's wait. Random trees of 2 to 4
// functions per node, leaves that may throw and nodes that may catch, checked against a serial evaluation:
// each node's value, and the exceptions dropped (a node whose k > 0 functions threw rethrows one, drops k -
// 1).

struct invoke_tree {
  int depth = 0;
  std::uint64_t seed = 0;
  std::uint64_t dropped = 0;  // serial: exceptions a node with several failed functions drops
};

struct invoke_shape {
  int functions = 0;  // 0 for a leaf
  bool throws = false;
  bool catches = false;
};

invoke_shape invoke_shape_of(std::uint64_t id, int depth) {
  std::uint64_t const h = mix(id);
  invoke_shape s;
  s.functions = depth > 0 ? 2 + static_cast<int>(h % 3) : 0;
  s.throws = s.functions == 0 && (h >> 20) % 16 == 0;
  s.catches = (h >> 28) % 4 == 0;
  return s;
}

std::uint64_t invoke_leaf_value(std::uint64_t id) {
  std::uint64_t v = id;
  for (int k = 0; k < 96; ++k) v = mix(v);  // enough work that thieves find functions to take
  return v;
}

std::uint64_t invoke_caught_value(std::uint64_t id) { return mix(id ^ 0xC0FFEEULL); }

std::optional<std::uint64_t> invoke_serial(invoke_tree& t, std::uint64_t id, int depth) {
  invoke_shape const s = invoke_shape_of(id, depth);
  if (s.functions == 0) return s.throws ? std::nullopt : std::optional(invoke_leaf_value(id));
  std::uint64_t v = id;
  int failed = 0;
  for (int i = 0; i < s.functions; ++i) {
    if (std::optional<std::uint64_t> const c = invoke_serial(t, child_id(id, i), depth - 1)) {
      v = mix(v ^ *c);
    } else {
      ++failed;
    }
  }
  if (failed == 0) return v;
  t.dropped += static_cast<std::uint64_t>(failed - 1);
  return s.catches ? std::optional(invoke_caught_value(id)) : std::nullopt;
}

std::uint64_t invoke_parallel(std::uint64_t id, int depth) {
  invoke_shape const s = invoke_shape_of(id, depth);
  if (s.functions == 0) {
    if (s.throws) throw tree_error(id);
    return invoke_leaf_value(id);
  }
  auto child = [id, depth](int i) {
    return [id, depth, i] { return invoke_parallel(child_id(id, i), depth - 1); };
  };
  auto fold = [id](auto const& results) {
    std::uint64_t v = id;
    std::apply([&v](auto... c) { ((v = mix(v ^ c)), ...); }, results);
    return v;
  };
  try {
    switch (s.functions) {
      case 2: return fold(fj::parallel_invoke(child(0), child(1)));
      case 3: return fold(fj::parallel_invoke(child(0), child(1), child(2)));
      default: return fold(fj::parallel_invoke(child(0), child(1), child(2), child(3)));
    }
  } catch (const tree_error&) {
    if (!s.catches) throw;
    return invoke_caught_value(id);
  }
}

template <class Pool>
void check_invoke_trees(Pool& pool, const std::string& name) {
  int const trees = static_cast<int>(fj::test::scaled(6, 2));
  for (int k = 0; k < trees; ++k) {
    invoke_tree t;
    t.seed = mix(static_cast<std::uint64_t>(k) * 977 + 5);
    t.depth = 5 + static_cast<int>(t.seed % 3);
    std::uint64_t const root = mix(t.seed);
    std::optional<std::uint64_t> const want = invoke_serial(t, root, t.depth);
    std::uint64_t const dropped_before = summed(pool).exceptions_dropped;
    std::optional<std::uint64_t> got;
    try {
      got = fj::sync_wait(pool, invoke_parallel, root, t.depth);
    } catch (const tree_error&) {
      got.reset();
    }
    EXPECT_EQ(got, want) << name << " tree " << k;
    EXPECT_EQ(summed(pool).exceptions_dropped - dropped_before, t.dropped) << name << " tree " << k;
  }
}

TEST(InvokeTrees, EveryNodeMatchesTheSerialEvaluationAtOneToSixteenWorkers) {
  if (fj::detail::k_fault_injection) GTEST_SKIP() << "the fault-injection build runs SpawnFaults only";
  std::uint64_t steals = 0;
  for (std::size_t const workers :
       {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{4}, std::size_t{8}, std::size_t{16}}) {
    {
      fj::busy_pool pool(workers);
      check_invoke_trees(pool, "busy" + std::to_string(workers));
      steals += summed(pool).steals;
    }
    fj::lazy_pool pool(workers);
    check_invoke_trees(pool, "lazy" + std::to_string(workers));
    steals += summed(pool).steals;
  }
  EXPECT_GT(steals, 0u) << "no steals on any pool: the runs proved nothing about concurrency";
}

// ---- deep spawn chains on small OS stacks ----
//
// A spawned call runs on an OS stack: at the sync of the code that spawned it (run_here), on a thief, or on
// the owner of a waiting scope that took it back from a thief (leapfrog.hpp). The stack bound (spawn.md
// "The stack bound") says that the calls nested on one OS stack always form a path of the spawn tree, so a
// worker needs the serial program's stack depth plus a constant per level. Here each worker's OS stack is
// 128 KiB, and the chains are as deep as fills about 60 % of it serially (measured in this build, since the
// bytes a level takes differ between compilers, optimisation levels and sanitizers):
//   - serially (one worker) one chain needs base + D * per_level ≈ 0.6 × 128 KiB: it fits;
//   - a waiting worker that ran any other work on top of its sync (e.g. a level of another chain, as a
//     scheduler that steals anything while it waits would) could stack a second chain on the first:
//     2 × 0.6 × 128 KiB > 128 KiB, an overflow (SIGSEGV on the guard page), so the test would crash;
//   - with the bound, a path of the tree uses D levels whichever workers run them, with the take-back
//     frames (wait_for_stolen, take_back_from_thief, run_taken_record) in place of run_here's: the measured
//     peak is printed, and it stays under 128 KiB.
// Several chains run at once (one per worker and more), each level also spawning a short sibling, so that
// thieves steal levels of every chain and waiting owners find work to take back.

constexpr std::size_t k_small_stack = std::size_t{128} * 1024;

std::uintptr_t stack_top_of_this_thread() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  void* low = nullptr;
  std::size_t size = 0;
  int const got = pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  return got == 0 ? reinterpret_cast<std::uintptr_t>(low) + size : 0;
}

// The deepest OS stack use seen at a leaf, in bytes from the top of its thread's stack.
std::atomic<std::size_t> g_peak_stack{0};

[[gnu::noinline]] void note_stack_use() {
  thread_local std::uintptr_t const top = stack_top_of_this_thread();
  // The frame address, not a local's: under ASan a local may live on a fake stack on the heap.
  auto const here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  if (top == 0 || here > top) return;
  std::size_t const used = top - here;
  std::size_t seen = g_peak_stack.load(std::memory_order_relaxed);
  // relaxed: a maximum read after the runs' sync_wait returned.
  while (used > seen && !g_peak_stack.compare_exchange_weak(seen, used, std::memory_order_relaxed)) {
  }
}

// Work that takes long enough (about a microsecond) for a thief to take the chain's next level meanwhile.
long grind(int v) {
  std::uint64_t x = static_cast<std::uint64_t>(v);
  for (int i = 0; i < 256; ++i) x = mix(x);
  asm volatile("" : : "r"(x));  // the result is used, so the loop stays
  return v & 1;
}

long spawn_chain(int depth) {
  if (depth == 0) {
    note_stack_use();
    return 0;
  }
  long below = 0;
  long sibling = 0;
  fj::scope s;
  s.spawn(&below, spawn_chain, depth - 1);  // the oldest item: what a thief takes
  s.spawn(&sibling, grind, depth);
  long const mine = grind(depth + 1);
  s.sync();
  return below + sibling + mine + 1;
}

// Each level adds 1, plus 1 for each odd one of depth and depth + 1 (grind returns v & 1).
long expected_chain(int depth) { return 2 * static_cast<long>(depth); }

// Several chains side by side, each spawned: what one worker waits for at its sync is one chain's level.
long chains(int count, int depth) {
  long results[32] = {};
  fj::scope s;
  for (int i = 0; i < count; ++i) s.spawn(&results[i], spawn_chain, depth);
  s.sync();
  long sum = 0;
  for (int i = 0; i < count; ++i) sum += results[i];
  return sum;
}

// Bytes of OS stack at a leaf of a serial chain of `depth` levels, on a one-worker pool with small stacks.
std::size_t serial_peak(int depth) {
  fj::busy_pool pool(fj::pool_options{.workers = 1, .thread_stack_size = k_small_stack});
  g_peak_stack.store(0, std::memory_order_relaxed);
  EXPECT_EQ(fj::sync_wait(pool, spawn_chain, depth), expected_chain(depth));
  return g_peak_stack.load(std::memory_order_relaxed);
}

TEST(DeepSpawns, ChainsDeeperThanHalfASmallOsStackCompleteAtOneToSixteenWorkers) {
  if (fj::detail::k_fault_injection) GTEST_SKIP() << "the fault-injection build runs SpawnFaults only";
#if !defined(__clang__) && (defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__))
  // g++'s sanitizer builds keep every std::invoke/std::apply layer as a frame of its own, with the
  // sanitizers' own stack use on top, so even the calibration chain overflows 128 KiB; clang's TSan and ASan
  // builds and both release builds run this test.
  GTEST_SKIP() << "g++ sanitizer build: frames too large to calibrate against a 128 KiB stack";
#endif
  // Calibration: the bytes per level, and what lies below the chain (worker loop, root).
  std::size_t const at_64 = serial_peak(64);
  std::size_t const at_128 = serial_peak(128);
  ASSERT_GT(at_128, at_64) << "the stack did not grow with depth: nothing to measure";
  std::size_t const per_level = (at_128 - at_64) / 64;
  std::size_t const base = at_64 - 64 * per_level;
  auto const depth = static_cast<int>((k_small_stack * 6 / 10 - base) / per_level);
  std::size_t const serial = serial_peak(depth);
  std::printf(
      "[deep spawns] %zu bytes per level, %zu below the chain: depth %d needs %zu of %zu bytes serially\n",
      per_level, base, depth, serial, k_small_stack);
  // The test means something only if a second chain on top of one would not fit.
  ASSERT_GT(2 * serial, k_small_stack);
  ASSERT_LT(serial, k_small_stack);

  fj::test::watchdog dog;
  int const repeats = static_cast<int>(fj::test::scaled(6, 2));
  for (std::size_t const workers :
       {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{4}, std::size_t{8}, std::size_t{16}}) {
    for (bool const lazy : {false, true}) {
      fj::pool_options const options{.workers = workers, .thread_stack_size = k_small_stack};
      std::optional<fj::busy_pool> busy;
      std::optional<fj::lazy_pool> lazy_pool;
      if (lazy) {
        lazy_pool.emplace(options);
      } else {
        busy.emplace(options);
      }
      int const count = static_cast<int>(std::min<std::size_t>(2 * workers, 32));
      std::string const name = std::string(lazy ? "lazy" : "busy") + std::to_string(workers);
      g_peak_stack.store(0, std::memory_order_relaxed);
      auto const watch = dog.watch("deep spawns " + name, [] { return std::string("(no pool state)"); });
      for (int r = 0; r < repeats; ++r) {
        long const got = lazy ? fj::sync_wait(*lazy_pool, chains, count, depth)
                              : fj::sync_wait(*busy, chains, count, depth);
        EXPECT_EQ(got, count * expected_chain(depth)) << name;
      }
      fj::worker_stats const s = lazy ? summed(*lazy_pool) : summed(*busy);
      std::printf(
          "[deep spawns] %s: %d chains of %d, peak OS stack %zu bytes, steals=%llu steals at sync=%llu\n",
          name.c_str(), count, depth, g_peak_stack.load(std::memory_order_relaxed),
          static_cast<unsigned long long>(s.steals), static_cast<unsigned long long>(s.steals_at_sync));
    }
  }
}

// ---- allocation failures (the FJ_FAULT_INJECTION=1 build) ----

// Every k-th frame or stacklet allocation throws std::bad_alloc: spawns (whose records are stack blocks) and
// forks fail at random places. Which ones fail depends on the interleaving, so a run is checked for what must
// hold whatever failed: it ends (a value or an exception, no crash or hang), every frame and record allocated
// is freed, no node runs twice, and a run in which no allocation failed returns the serial answer.
TEST(SpawnFaults, AllocationFailuresAtSpawnsUnwindAndFreeEverything) {
#if defined(FJ_FAULT_INJECTION) && FJ_FAULT_INJECTION
  using fj::detail::fault_injection;
  std::uint64_t const seed = fj::test::seed();
  fj::test::watchdog dog;
  std::uint64_t faulted_runs = 0;
  std::uint64_t clean_runs = 0;
  for (std::size_t const workers : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
    fj::busy_pool pool(workers);
    for (int run = 0; run < static_cast<int>(fj::test::scaled(40, 10)); ++run) {
      std::uint64_t const h = mix(seed ^ mix(static_cast<std::uint64_t>(run) + 0x1000 * workers));
      tree_context ctx;
      ctx.params = draw_params(h);
      serial_tree serial;
      serial.params = &ctx.params;
      std::uint64_t const root = mix(h ^ 0x5A5A5A5AULL);
      std::optional<node_value> const want = ctx.params.task_root
                                                 ? std::optional(serial.task(root, ctx.params.depth))
                                                 : serial.plain(root, ctx.params.depth);
      ctx.expected = &serial.values;
      std::uint64_t const period = 20 + (h >> 8) % 400;
      std::uint64_t const faults_before =
          fault_injection::frame_faults() + fault_injection::stacklet_faults();
      std::uint64_t const allocated_before = fault_injection::frames_allocated();
      std::uint64_t const freed_before = fault_injection::frames_freed();
      fault_injection::arm({.frame_period = period,
                            .frame_phase = (h >> 20) % period,
                            .stacklet_period = (h >> 30) % 2 == 0 ? std::uint64_t{0} : std::uint64_t{3},
                            .stacklet_phase = (h >> 40) % 3});
      auto const watch =
          dog.watch("spawn faults run " + std::to_string(run), [&] { return fj::test::describe_pool(pool); });
      std::optional<node_value> got;
      bool root_threw = false;
      bool threw_bad_alloc = false;
      try {
        got = ctx.params.task_root ? fj::sync_wait(pool, task_node, &ctx, root, ctx.params.depth)
                                   : fj::sync_wait(pool, plain_node, &ctx, root, ctx.params.depth);
      } catch (const tree_error&) {
        root_threw = true;
      } catch (const std::bad_alloc&) {
        threw_bad_alloc = true;
      }
      fault_injection::disarm();
      std::uint64_t const faults =
          fault_injection::frame_faults() + fault_injection::stacklet_faults() - faults_before;
      EXPECT_EQ(fault_injection::frames_allocated() - allocated_before,
                fault_injection::frames_freed() - freed_before)
          << "run " << run << " workers " << workers << " (FJ_TEST_SEED=" << seed << ")";
      EXPECT_LE(ctx.nodes_run.load(std::memory_order_relaxed), serial.nodes_run) << "a node ran twice";
      if (faults == 0) {
        ++clean_runs;
        EXPECT_FALSE(threw_bad_alloc);
        EXPECT_EQ(got, want) << "run " << run << " without faults differs from the serial evaluation";
        EXPECT_EQ(root_threw, !want);
        EXPECT_EQ(ctx.mismatches.load(std::memory_order_relaxed), 0u);
      } else {
        ++faulted_runs;
      }
    }
  }
  std::printf("[spawn faults] runs with allocation failures=%llu, without=%llu\n",
              static_cast<unsigned long long>(faulted_runs), static_cast<unsigned long long>(clean_runs));
  EXPECT_GT(faulted_runs, 0u) << "no allocation failed: this test tested nothing";
#else
  GTEST_SKIP() << "needs the FJ_FAULT_INJECTION=1 build (test_spawn_stress_test_injected)";
#endif
}

}  // namespace
