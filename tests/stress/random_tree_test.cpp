// Stress: random fork/call/join trees, every node's value checked against a serial evaluation of the same
// tree, at 1, 2, 3, 4, 8 and 16 workers (oversubscribed on small machines), on busy and lazy pools. A second
// program built from this file runs with the chaos hooks on (tests/CMakeLists.txt; FJ_CHAOS_SEED picks them).
//
// A tree is a pure function of its id and its parameters: every node derives its shape (number of children,
// fork or call for each, where the joins go, whether it returns without a final join, how much work it does,
// whether its subtree is handed to another pool) from a hash of its id. The parameters (depth, fan-out, the
// fork/call mix, join density, hand-off rate) are drawn per tree from the seed, so one run covers chains,
// bushy trees, all-call and all-fork trees.
//
// Nested sync_wait: some nodes hand their subtree to a second pool, either directly (fj::sync_wait from the
// worker, which blocks that worker) or through an outside std::thread that calls fj::sync_wait while the
// worker waits for it. Why this cannot deadlock: a worker of the main pool blocks only on work that runs
// entirely on the helper pool, and the helper pool's trees never hand off (never block their workers), so
// every wait points from the main pool to the helper pool and no cycle of waits exists. Handing a subtree
// back to the *same* pool would not be safe: with one worker (or with every worker blocked in such a wait)
// nobody would be left to run the submitted root, and a root goes to the inbox of one particular worker,
// which may be the very one that is blocked.
//
// Moves: some nodes of the trees on the main pool start by moving themselves to a random worker of that pool
// (fj::resume_on), so that tasks arrive through workers' submission queues while other workers' deques may
// hold continuations that moved children left behind (join.md §6).
//
// Figures, printed at the end: runs (trees), nodes, steals, hand-offs, moves, mismatches, hangs, and
// `N passed, N failed` over trees. A hang is caught by a watchdog (tests/support/watchdog.hpp) that prints
// the seed and the pools' state and aborts. FJ_SOAK_SECONDS=<s> turns the run into a soak: each
// configuration keeps drawing new trees for its share of <s> seconds.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "support/mix.hpp"
#include "support/test_config.hpp"
#include "support/watchdog.hpp"

namespace {

using fj::test::mix;

constexpr int k_max_children = 8;

// What a tree looks like, drawn once per tree.
struct tree_params {
  int depth = 0;                 // levels below the root
  int min_children = 0;          // an inner node has min..max children, uniformly
  int max_children = 0;          // at most k_max_children
  unsigned fork_in_8 = 0;        // chance, in eighths, that a child is forked rather than called
  unsigned join_in_8 = 0;        // chance that a join follows a child
  unsigned implicit_in_8 = 0;    // chance that a node returns without its final join (implicit join)
  unsigned handoff_in_1024 = 0;  // chance that a node with depth >= 2 hands its subtree to the helper pool
  unsigned move_in_1024 = 0;     // chance that a node starts by moving to a random worker of its pool

  [[nodiscard]] std::string describe() const {
    return "depth=" + std::to_string(depth) + " children=" + std::to_string(min_children) + ".." +
           std::to_string(max_children) + " fork=" + std::to_string(fork_in_8) +
           "/8 join=" + std::to_string(join_in_8) + "/8 implicit=" + std::to_string(implicit_in_8) +
           "/8 handoff=" + std::to_string(handoff_in_1024) + "/1024 move=" + std::to_string(move_in_1024) +
           "/1024";
  }
};

// The number of nodes the trees aim at (the shapes are random, so a tree may be a few times larger).
std::uint64_t node_budget() { return fj::test::scaled(16000, 3000); }

// Levels such that a tree with `mean` children per node stays near the node budget.
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

tree_params draw_params(std::uint64_t h, bool handoffs) {
  tree_params p;
  // Chains test deep recursion. g++ builds without tail calls spend OS stack per level (docs/traps.md
  // "g++ and symmetric transfer"): shorter there.
  int const chain_cap = fj::test::gcc_no_tail_calls ? 300 : 2000;
  switch (h % 4) {
    case 0:  // bushy
      p.min_children = 0;
      p.max_children = 4 + static_cast<int>((h >> 4) % 5);
      break;
    case 1:  // chain-like: long paths, few siblings
      p.min_children = 1;
      p.max_children = 1 + static_cast<int>((h >> 4) % 2);
      break;
    case 2:  // binary
      p.min_children = 2;
      p.max_children = 2;
      break;
    default:  // anything
      p.min_children = static_cast<int>((h >> 4) % 3);
      p.max_children = p.min_children + static_cast<int>((h >> 6) % 5);
      break;
  }
  double const mean = (p.min_children + p.max_children) / 2.0;
  int const cap = p.max_children <= 1 ? chain_cap : 40;
  int const full = depth_for(mean, node_budget(), cap);
  p.depth = std::max(1, full - static_cast<int>((h >> 9) % 3));
  p.fork_in_8 = static_cast<unsigned>((h >> 12) % 9);
  p.join_in_8 = static_cast<unsigned>((h >> 16) % 9) / 2;
  p.implicit_in_8 = static_cast<unsigned>((h >> 20) % 9);
  p.handoff_in_1024 = handoffs ? 4 * static_cast<unsigned>((h >> 24) % 3) : 0;
  p.move_in_1024 = 4 * static_cast<unsigned>((h >> 28) % 3);
  return p;
}

enum class handoff_kind { none, direct, outside_thread };

struct node_shape {
  int children = 0;
  std::uint64_t bits = 0;  // per child: bit 2i = fork (else call), bit 2i+1 = join right after this child
  bool implicit_join = false;
  handoff_kind handoff = handoff_kind::none;
  bool move = false;  // start by moving to worker move_to of the node's pool
  std::uint64_t move_to = 0;
  int work = 0;  // rounds of mixing the node does itself, so that thieves find something to take
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
    if (r % 8 < p.fork_in_8) s.bits |= std::uint64_t{1} << (2 * i);
    if ((r >> 8) % 8 < p.join_in_8) s.bits |= std::uint64_t{1} << (2 * i + 1);
  }
  s.implicit_join = (h >> 16) % 8 < p.implicit_in_8;
  if (depth >= 2 && (h >> 24) % 1024 < p.handoff_in_1024) {
    s.handoff = (h >> 40) % 2 == 0 ? handoff_kind::direct : handoff_kind::outside_thread;
  }
  s.work = 16 + static_cast<int>((h >> 44) % 96);
  s.move = (g >> 32) % 1024 < p.move_in_1024;
  s.move_to = g >> 48;
  return s;
}

std::uint64_t child_id(std::uint64_t id, int i) { return mix(id * 31 + static_cast<std::uint64_t>(i) + 1); }

// A node's value: a hash over its id and its children's values (so a wrong value anywhere below changes it)
// and the size of its subtree.
struct node_value {
  std::uint64_t hash = 0;
  std::uint64_t nodes = 0;
  friend bool operator==(const node_value&, const node_value&) = default;
};

node_value combine(std::uint64_t id, const node_value* r, int n, int work) {
  node_value v{id, 1};
  for (int i = 0; i < n; ++i) {
    v.hash = mix(v.hash ^ r[i].hash);
    v.nodes += r[i].nodes;
  }
  for (int k = 0; k < work; ++k) v.hash = mix(v.hash);
  return v;
}

// Serial evaluation: the value of every node, by id.
using expected_values = std::unordered_map<std::uint64_t, node_value>;

node_value serial_tree(const tree_params& p, std::uint64_t id, int depth, expected_values& out) {
  node_shape const s = shape_of(p, id, depth);
  node_value r[k_max_children] = {};
  for (int i = 0; i < s.children; ++i) r[i] = serial_tree(p, child_id(id, i), depth - 1, out);
  node_value const v = combine(id, r, s.children, s.work);
  out.emplace(id, v);
  return v;
}

// Everything a node of one tree needs; shared read-only by every node, except the counters.
struct tree_context {
  tree_params params;
  const expected_values* expected = nullptr;
  fj::lazy_pool* helper = nullptr;  // where hand-offs go; null on the helper itself
  // The pool the tree runs on, for moves (one of the two; both null: no moves, as on the helper pool).
  fj::busy_pool* busy = nullptr;
  fj::lazy_pool* lazy = nullptr;
  const tree_context* helper_context = nullptr;  // the same tree without hand-offs, for the helper pool
  // relaxed: plain event counts, read after the tree's sync_wait returned (which orders them).
  mutable std::atomic<std::uint64_t> mismatches{0};
  mutable std::atomic<std::uint64_t> direct_handoffs{0};
  mutable std::atomic<std::uint64_t> thread_handoffs{0};
  mutable std::atomic<std::uint64_t> moves{0};
  mutable std::atomic<std::uint64_t> first_bad_id{0};

  void check(std::uint64_t id, const node_value& v) const {
    auto const it = expected->find(id);
    if (it == expected->end() || it->second != v) {
      if (mismatches.fetch_add(1, std::memory_order_relaxed) == 0) {
        first_bad_id.store(id, std::memory_order_relaxed);
      }
    }
  }
};

fj::task<node_value> tree_node(const tree_context* ctx, std::uint64_t id, int depth);

// Starts every child of a node as its shape says. Without joins it returns with forked children still
// running: the implicit join must finish them all before the caller's fj::call returns.
fj::task<void> run_children(const tree_context* ctx, std::uint64_t id, int depth, node_shape s, node_value* r,
                            bool joins) {
  for (int i = 0; i < s.children; ++i) {
    if ((s.bits >> (2 * i)) & 1) {
      co_await fj::fork(&r[i], tree_node, ctx, child_id(id, i), depth - 1);
    } else {
      co_await fj::call(&r[i], tree_node, ctx, child_id(id, i), depth - 1);
    }
    if (joins && ((s.bits >> (2 * i + 1)) & 1)) co_await fj::join;
  }
  if (joins) co_await fj::join;
}

// The node's whole subtree, evaluated on the helper pool (see the top comment for why this cannot deadlock).
node_value hand_off(const tree_context* ctx, std::uint64_t id, int depth, handoff_kind how) {
  const tree_context* inner = ctx->helper_context;
  if (how == handoff_kind::direct) {
    ctx->direct_handoffs.fetch_add(1, std::memory_order_relaxed);
    return fj::sync_wait(*ctx->helper, tree_node, inner, id, depth);
  }
  ctx->thread_handoffs.fetch_add(1, std::memory_order_relaxed);
  node_value v;
  std::thread outside([&] { v = fj::sync_wait(*ctx->helper, tree_node, inner, id, depth); });
  outside.join();
  return v;
}

fj::task<node_value> tree_node(const tree_context* ctx, std::uint64_t id, int depth) {
  node_shape const s = shape_of(ctx->params, id, depth);
  // A task that has forked nothing yet may always move (resume_on refuses only inside a stolen scope).
  // Two branches, not one co_await of a conditional expression choosing the awaitable: g++-12 evaluates both
  // arms of such an operand, and the arm not taken dereferences a null pool pointer (docs/compilers.md).
  if (s.move && ctx->busy != nullptr) {
    co_await fj::resume_on(*ctx->busy, s.move_to % ctx->busy->size());
    ctx->moves.fetch_add(1, std::memory_order_relaxed);
  } else if (s.move && ctx->lazy != nullptr) {
    co_await fj::resume_on(*ctx->lazy, s.move_to % ctx->lazy->size());
    ctx->moves.fetch_add(1, std::memory_order_relaxed);
  }
  if (s.handoff != handoff_kind::none && ctx->helper != nullptr)
    co_return hand_off(ctx, id, depth, s.handoff);
  node_value r[k_max_children] = {};
  if (s.implicit_join) {
    co_await fj::call(run_children, ctx, id, depth, s, r, false);
  } else {
    co_await fj::call(run_children, ctx, id, depth, s, r, true);
  }
  node_value const v = combine(id, r, s.children, s.work);
  ctx->check(id, v);
  co_return v;
}

// ---- figures over the whole program ----

struct figures {
  std::uint64_t runs = 0;
  std::uint64_t failed_runs = 0;
  std::uint64_t nodes = 0;
  std::uint64_t steals = 0;             // in pools with more than one worker
  std::uint64_t multi_worker_runs = 0;  // trees run on pools with more than one worker
  std::uint64_t direct_handoffs = 0;
  std::uint64_t thread_handoffs = 0;
  std::uint64_t moves = 0;
  std::uint64_t mismatches = 0;
};

figures& totals() {
  static figures f;
  return f;
}

std::uint64_t steals_of(const fj::detail::pool_base& pool) {
  std::uint64_t n = 0;
  for (const auto& s : pool.stats()) n += s.steals;
  return n;
}

std::uint64_t chaos_seed_in_use() {
  const char* env = std::getenv("FJ_CHAOS_SEED");
  return env != nullptr ? std::strtoull(env, nullptr, 0) : 1;
}

class print_figures : public ::testing::Environment {
 public:
  void TearDown() override {
    const figures& f = totals();
    std::printf(
        "[random trees] figures: runs=%llu nodes=%llu steals=%llu (over %llu runs on multi-worker pools) "
        "nested sync_wait: direct=%llu outside-thread=%llu moves=%llu mismatches=%llu hangs=0 (watchdog: "
        "%llds) chaos=%s",
        static_cast<unsigned long long>(f.runs), static_cast<unsigned long long>(f.nodes),
        static_cast<unsigned long long>(f.steals), static_cast<unsigned long long>(f.multi_worker_runs),
        static_cast<unsigned long long>(f.direct_handoffs),
        static_cast<unsigned long long>(f.thread_handoffs), static_cast<unsigned long long>(f.moves),
        static_cast<unsigned long long>(f.mismatches),
        static_cast<long long>(fj::test::watchdog::deadline_from_env(std::chrono::seconds(120)).count()),
        fj::test::chaos ? "on" : "off");
    if (fj::test::chaos)
      std::printf(" (FJ_CHAOS_SEED=%llu)", static_cast<unsigned long long>(chaos_seed_in_use()));
    std::printf("\n[random trees] %llu passed, %llu failed\n",
                static_cast<unsigned long long>(f.runs - f.failed_runs),
                static_cast<unsigned long long>(f.failed_runs));
    if (f.multi_worker_runs > 0) {
      EXPECT_GT(f.steals, 0u)
          << "no steals on any multi-worker pool: the runs proved nothing about concurrency";
    }
  }
};

// Registered during static initialisation, where an exception could not be caught: hence nothrow (GoogleTest
// ignores a null environment) and noexcept.
::testing::Environment* register_figures_printer() noexcept {
  return ::testing::AddGlobalTestEnvironment(new (std::nothrow) print_figures);
}
[[maybe_unused]] ::testing::Environment* const figures_printer = register_figures_printer();

// FJ_SOAK_SECONDS, or 0 for the default fixed amount of work.
double soak_seconds() {
  const char* env = std::getenv("FJ_SOAK_SECONDS");
  return env != nullptr ? std::strtod(env, nullptr) : 0.0;
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
constexpr std::size_t k_configurations = std::size(k_runs) + 1;  // + the concurrent-roots test

// The outcome of one tree.
struct tree_outcome {
  bool ok = true;
  std::uint64_t nodes = 0;
  std::uint64_t mismatches = 0;
  std::uint64_t direct_handoffs = 0;
  std::uint64_t thread_handoffs = 0;
  std::uint64_t moves = 0;
};

// Runs one tree drawn from `tree_seed` on `pool` (hand-offs to `helper`) and checks every node.
template <class Pool>
tree_outcome run_one_tree(Pool& pool, fj::lazy_pool& helper, std::uint64_t tree_seed,
                          const std::string& label) {
  tree_context ctx;
  ctx.params = draw_params(mix(tree_seed), true);
  tree_context helper_ctx;
  helper_ctx.params = ctx.params;
  helper_ctx.params.handoff_in_1024 = 0;
  expected_values expected;
  std::uint64_t const root = mix(tree_seed ^ 0xA5A5A5A5ULL);
  node_value const want = serial_tree(ctx.params, root, ctx.params.depth, expected);
  helper_ctx.expected = &expected;
  ctx.expected = &expected;
  ctx.helper = &helper;
  ctx.helper_context = &helper_ctx;
  if constexpr (std::is_same_v<Pool, fj::busy_pool>) {
    ctx.busy = &pool;
  } else {
    ctx.lazy = &pool;
  }

  node_value const got = fj::sync_wait(pool, tree_node, &ctx, root, ctx.params.depth);

  tree_outcome out;
  // relaxed: the sync_wait (and the hand-offs' sync_waits and thread joins) ordered every increment before
  // us.
  out.mismatches =
      ctx.mismatches.load(std::memory_order_relaxed) + helper_ctx.mismatches.load(std::memory_order_relaxed);
  out.direct_handoffs = ctx.direct_handoffs.load(std::memory_order_relaxed);
  out.thread_handoffs = ctx.thread_handoffs.load(std::memory_order_relaxed);
  out.moves = ctx.moves.load(std::memory_order_relaxed);
  out.nodes = want.nodes;
  if (got != want) ++out.mismatches;
  out.ok = out.mismatches == 0;
  EXPECT_TRUE(out.ok) << label << ": " << out.mismatches
                      << " node(s) differ from the serial evaluation; first detected bad node "
                      << std::max(ctx.first_bad_id.load(std::memory_order_relaxed),
                                  helper_ctx.first_bad_id.load(std::memory_order_relaxed))
                      << "; tree " << ctx.params.describe()
                      << "; rerun with FJ_TEST_SEED=" << fj::test::seed();
  return out;
}

void add(figures& f, const tree_outcome& o, bool multi_worker) {
  ++f.runs;
  if (!o.ok) ++f.failed_runs;
  if (multi_worker) ++f.multi_worker_runs;
  f.nodes += o.nodes;
  f.mismatches += o.mismatches;
  f.direct_handoffs += o.direct_handoffs;
  f.thread_handoffs += o.thread_handoffs;
  f.moves += o.moves;
}

// Trees per configuration, or, in a soak, keep going until this configuration's share of the time is up.
class tree_budget {
 public:
  explicit tree_budget(std::uint64_t trees)
      : trees_(trees),
        soak_(soak_seconds() / static_cast<double>(k_configurations)),
        start_(std::chrono::steady_clock::now()) {}

  [[nodiscard]] bool more(std::uint64_t done) const {
    if (soak_ <= 0) return done < trees_;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() < soak_;
  }

 private:
  std::uint64_t trees_;
  double soak_;
  std::chrono::steady_clock::time_point start_;
};

template <class Pool>
void check_random_trees(Pool& pool, tree_run run, std::size_t config_index) {
  fj::lazy_pool helper(2);
  fj::test::watchdog dog;
  std::uint64_t const seed = fj::test::seed();
  std::string const name = name_of(run);
  figures here;
  tree_budget const budget(100);
  for (std::uint64_t t = 0; budget.more(t); ++t) {
    std::uint64_t const tree_seed = mix(seed + 1000003 * config_index + t);
    std::string const label =
        name + " tree " + std::to_string(t) + " (FJ_TEST_SEED=" + std::to_string(seed) + ")";
    auto const watch = dog.watch(label, [&] {
      return "main pool: " + fj::test::describe_pool(pool) +
             "helper pool: " + fj::test::describe_pool(helper) +
             "tree: " + draw_params(mix(tree_seed), true).describe();
    });
    add(here, run_one_tree(pool, helper, tree_seed, label), run.workers > 1);
  }
  here.steals = run.workers > 1 ? steals_of(pool) : 0;
  std::printf(
      "[random trees] %s: trees=%llu nodes=%llu steals=%llu hand-offs=%llu+%llu moves=%llu mismatches=%llu\n",
      name.c_str(), static_cast<unsigned long long>(here.runs), static_cast<unsigned long long>(here.nodes),
      static_cast<unsigned long long>(steals_of(pool)), static_cast<unsigned long long>(here.direct_handoffs),
      static_cast<unsigned long long>(here.thread_handoffs), static_cast<unsigned long long>(here.moves),
      static_cast<unsigned long long>(here.mismatches));
  if (run.workers > 1) {
    EXPECT_GT(here.steals, 0u) << name
                               << ": no steals, so this configuration proved nothing about concurrency";
  }
  figures& f = totals();
  f.runs += here.runs;
  f.failed_runs += here.failed_runs;
  f.nodes += here.nodes;
  f.steals += here.steals;
  f.multi_worker_runs += here.multi_worker_runs;
  f.direct_handoffs += here.direct_handoffs;
  f.thread_handoffs += here.thread_handoffs;
  f.moves += here.moves;
  f.mismatches += here.mismatches;
}

class RandomTrees : public ::testing::TestWithParam<std::size_t> {};

TEST_P(RandomTrees, EveryNodeMatchesTheSerialEvaluation) {
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

INSTANTIATE_TEST_SUITE_P(Pools, RandomTrees, ::testing::Range<std::size_t>(0, std::size(k_runs)),
                         [](const ::testing::TestParamInfo<std::size_t>& param_info) {
                           return name_of(k_runs[param_info.param]);
                         });

// Outside threads submit random trees to one pool at once, while those trees hand subtrees to the helper
// pool.
TEST(RandomTreesConcurrentRoots, TreesSubmittedFromSeveralThreadsAllMatch) {
  fj::busy_pool pool(3);
  fj::lazy_pool helper(2);
  fj::test::watchdog dog;
  std::uint64_t const seed = fj::test::seed();
  constexpr int k_threads = 4;
  tree_budget const budget(fj::test::scaled(40, 20));
  auto const watch = dog.watch("concurrent roots (FJ_TEST_SEED=" + std::to_string(seed) + ")", [&] {
    return "main pool: " + fj::test::describe_pool(pool) + "helper pool: " + fj::test::describe_pool(helper);
  });
  std::vector<figures> per_thread(k_threads);
  std::vector<std::thread> threads;
  threads.reserve(k_threads);
  for (int t = 0; t < k_threads; ++t) {
    threads.emplace_back([&, t] {
      for (std::uint64_t i = 0; budget.more(i); ++i) {
        std::uint64_t const tree_seed = mix(seed ^ (0xC0FFEEULL + static_cast<std::uint64_t>(t) * 1000 + i));
        std::string const label =
            "concurrent roots thread " + std::to_string(t) + " tree " + std::to_string(i);
        add(per_thread[static_cast<std::size_t>(t)], run_one_tree(pool, helper, tree_seed, label), true);
      }
    });
  }
  for (auto& th : threads) th.join();
  figures& f = totals();
  std::uint64_t runs = 0;
  for (const figures& p : per_thread) {
    runs += p.runs;
    f.runs += p.runs;
    f.failed_runs += p.failed_runs;
    f.nodes += p.nodes;
    f.multi_worker_runs += p.multi_worker_runs;
    f.direct_handoffs += p.direct_handoffs;
    f.thread_handoffs += p.thread_handoffs;
    f.moves += p.moves;
    f.mismatches += p.mismatches;
  }
  f.steals += steals_of(pool);
  std::printf("[random trees] concurrent roots: trees=%llu steals=%llu\n",
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(steals_of(pool)));
}

// The watchdog itself: a run that overruns its deadline is reported with its label and the state it was
// given, and the process stops, in a child process here.
TEST(RandomTreesWatchdogDeathTest, ARunPastItsDeadlineIsReportedAndStopsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        fj::test::watchdog dog(std::chrono::seconds(1));
        auto const watch =
            dog.watch("a run that never ends", [] { return std::string("state of the pools"); });
        std::this_thread::sleep_for(std::chrono::seconds(60));
      },
      "\\[watchdog\\] HANG: a run that never ends did not finish within 1 s.*state of the pools");
}

}  // namespace
