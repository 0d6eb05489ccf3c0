// fj::priority_group (include/forkjoin/priority_group.hpp, docs/protocols/priority.md §10): priority tasks
// on a pool. Order on one worker for each storage, exceptions (the first rethrown, the others counted, no
// task lost), nested spawns, waiting from an ordinary thread and from a worker, reuse, lazy pools waking for
// priority work, and each misuse: NaN, wait from inside the group, too many groups.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/test_config.hpp"

namespace {

// Records the order in which tasks ran (on one worker, no lock needed; the mutex keeps TSan quiet on more).
struct order_log {
  std::mutex mutex;
  std::vector<double> ran;
  void add(double p) {
    const std::lock_guard<std::mutex> lock(mutex);
    ran.push_back(p);
  }
};

// On a one-worker pool, a first task spawns `priorities` into the group while it runs, so that nothing of
// them runs before it returns; the worker then drains the storage.
template <class Group>
std::vector<double> run_order(const std::vector<double>& priorities) {
  fj::lazy_pool pool(1);
  Group g(pool);
  order_log log;
  g.spawn(0.0, [&] {
    for (double p : priorities) {
      g.spawn(p, [&log, p] { log.add(p); });
    }
  });
  g.wait();
  return log.ran;
}

std::vector<double> shuffled_priorities(std::size_t n) {
  std::vector<double> p(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<double>(i % 97) - 30.5;
  std::mt19937_64 rng(fj::test::default_seed);
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

TEST(PriorityGroup, StrictStorageRunsTasksInPriorityOrderOnOneWorker) {
  std::vector<double> const p = shuffled_priorities(500);
  std::vector<double> ran = run_order<fj::strict_priority_group>(p);
  std::vector<double> expected = p;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ran, expected);
}

TEST(PriorityGroup, RelaxedStorageRunsItsOwnPushesInPriorityOrderOnOneWorker) {
  // One worker sees every item it pushed: no relaxation applies.
  std::vector<double> const p = shuffled_priorities(500);
  std::vector<double> ran = run_order<fj::relaxed_priority_group<8>>(p);
  std::vector<double> expected = p;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ran, expected);
}

TEST(PriorityGroup, NoPriorityStorageIgnoresPrioritiesAndRunsNewestFirst) {
  std::vector<double> const p = shuffled_priorities(100);
  std::vector<double> ran = run_order<fj::no_priority_group>(p);
  std::vector<double> expected(p.rbegin(), p.rend());
  EXPECT_EQ(ran, expected);
}

TEST(PriorityGroup, InfinitePrioritiesAreOrdered) {
  double const inf = std::numeric_limits<double>::infinity();
  std::vector<double> ran = run_order<fj::strict_priority_group>({inf, 1.0, -inf, 0.0});
  EXPECT_EQ(ran, (std::vector<double>{-inf, 0.0, 1.0, inf}));
}

TEST(PriorityGroup, SpawnsFromAnOrdinaryThreadRunInPriorityOrderOnOneWorker) {
  // The worker is held busy until every spawn is queued (at the outside index, priority.md §10).
  fj::lazy_pool pool(1);
  fj::strict_priority_group g(pool);
  std::atomic<bool> go{false};
  g.spawn(-1e9, [&] {
    while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
  });
  order_log log;
  std::vector<double> const p = shuffled_priorities(200);
  for (double x : p) g.spawn(x, [&log, x] { log.add(x); });
  go.store(true, std::memory_order_release);
  g.wait();
  std::vector<double> expected = p;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(log.ran, expected);
}

// A tree of tasks: each node below `depth` spawns `fanout` children with random priorities.
template <class Group>
void tree(Group& g, std::atomic<std::uint64_t>& count, int depth, int fanout, std::uint64_t seed) {
  count.fetch_add(1, std::memory_order_relaxed);
  if (depth == 0) return;
  for (int i = 0; i < fanout; ++i) {
    std::uint64_t const child_seed = seed * 6364136223846793005ULL + static_cast<std::uint64_t>(i) + 1;
    g.spawn(static_cast<double>(child_seed % 1000),
            [&g, &count, depth, fanout, child_seed] { tree(g, count, depth - 1, fanout, child_seed); });
  }
}

std::uint64_t tree_size(int depth, int fanout) {
  std::uint64_t n = 0;
  std::uint64_t level = 1;
  for (int d = 0; d <= depth; ++d, level *= static_cast<std::uint64_t>(fanout)) n += level;
  return n;
}

template <class Group, class Pool>
void nested_spawns_all_run(Pool& pool) {
  Group g(pool);
  std::atomic<std::uint64_t> count{0};
  g.spawn(0.0, [&] { tree(g, count, 6, 3, 1); });
  g.wait();
  EXPECT_EQ(count.load(), tree_size(6, 3));
  EXPECT_EQ(g.pending(), 0U);
}

TEST(PriorityGroup, NestedSpawnsAllRunBeforeWaitReturnsOnEachStorageAndPool) {
  fj::lazy_pool lazy(2);
  fj::busy_pool busy(2);
  fj::unit_pool unit;
  nested_spawns_all_run<fj::strict_priority_group>(lazy);
  nested_spawns_all_run<fj::relaxed_priority_group<4>>(lazy);
  nested_spawns_all_run<fj::no_priority_group>(lazy);
  nested_spawns_all_run<fj::strict_priority_group>(busy);
  nested_spawns_all_run<fj::relaxed_priority_group<4>>(busy);
  nested_spawns_all_run<fj::no_priority_group>(busy);
  nested_spawns_all_run<fj::relaxed_priority_group<4>>(unit);
}

TEST(PriorityGroup, FirstExceptionIsRethrownTheOthersCountedAndNoTaskLost) {
  fj::lazy_pool pool(2);
  auto dropped = [&] {
    std::uint64_t n = 0;
    for (const auto& s : pool.stats()) n += s.exceptions_dropped;
    return n;
  };
  std::uint64_t const before = dropped();
  fj::relaxed_priority_group<4> g(pool);
  std::atomic<int> ran{0};
  for (int i = 0; i < 50; ++i) {
    g.spawn(static_cast<double>(i), [&ran, i] {
      ran.fetch_add(1, std::memory_order_relaxed);
      if (i % 10 == 0) throw std::runtime_error("task " + std::to_string(i));
    });
  }
  EXPECT_THROW(g.wait(), std::runtime_error);
  EXPECT_EQ(ran.load(), 50);
  EXPECT_EQ(dropped() - before, 4U);
  // The group is reusable: a new round with no exception.
  g.spawn(1.0, [&ran] { ran.fetch_add(1, std::memory_order_relaxed); });
  EXPECT_NO_THROW(g.wait());
  EXPECT_EQ(ran.load(), 51);
}

TEST(PriorityGroup, AnExceptionNotCollectedByWaitIsCountedByTheDestructor) {
  fj::lazy_pool pool(1);
  {
    fj::strict_priority_group g(pool);
    g.spawn(0.0, [] { throw std::runtime_error("never collected"); });
  }
  std::uint64_t n = 0;
  for (const auto& s : pool.stats()) n += s.exceptions_dropped;
  EXPECT_EQ(n, 1U);
}

TEST(PriorityGroup, WaitOnAWorkerOfThePoolRunsTheTasksItself) {
  // One worker: the waiting task is the only one that can run the group's tasks.
  fj::lazy_pool pool(1);
  std::uint64_t const count = fj::sync_wait(pool, [&pool] {
    fj::strict_priority_group g(pool);
    std::atomic<std::uint64_t> n{0};
    g.spawn(0.0, [&] { tree(g, n, 4, 3, 7); });
    g.wait();
    return n.load();
  });
  EXPECT_EQ(count, tree_size(4, 3));
}

TEST(PriorityGroup, TasksMayUseAScopeInside) {
  fj::lazy_pool pool(2);
  fj::relaxed_priority_group<4> g(pool);
  std::atomic<long> sum{0};
  for (int i = 0; i < 20; ++i) {
    g.spawn(static_cast<double>(i), [&sum] {
      long a = 0;
      long b = 0;
      fj::scope s;
      s.spawn([&a] { a = 1; });
      b = 2;
      s.sync();
      sum.fetch_add(a + b, std::memory_order_relaxed);
    });
  }
  g.wait();
  EXPECT_EQ(sum.load(), 60);
}

TEST(PriorityGroup, ACoroutineTaskMaySpawnIntoAGroupAndWait) {
  fj::lazy_pool pool(2);
  auto body = [](fj::lazy_pool* p) -> fj::task<int> {
    fj::relaxed_priority_group<4> g(*p);
    std::atomic<int> n{0};
    for (int i = 0; i < 30; ++i) g.spawn(static_cast<double>(-i), [&n] { n.fetch_add(1); });
    g.wait();
    co_return n.load();
  };
  EXPECT_EQ(fj::sync_wait(pool, body, &pool), 30);
}

TEST(PriorityGroup, NanPriorityThrowsPriorityErrorAndQueuesNothing) {
  fj::lazy_pool pool(1);
  fj::strict_priority_group g(pool);
  bool ran = false;
  EXPECT_THROW(g.spawn(std::nan(""), [&ran] { ran = true; }), fj::priority_error);
  EXPECT_EQ(g.pending(), 0U);
  g.wait();
  EXPECT_FALSE(ran);
}

TEST(PriorityGroup, NanPriorityFromInsideATaskReachesWait) {
  fj::busy_pool pool(2);
  fj::relaxed_priority_group<4> g(pool);
  g.spawn(0.0, [&g] { g.spawn(std::nan(""), [] {}); });
  EXPECT_THROW(g.wait(), fj::priority_error);
}

TEST(PriorityGroup, WaitFromATaskOfTheSameGroupThrowsDeadlockError) {
  fj::lazy_pool pool(2);
  fj::strict_priority_group g(pool);
  g.spawn(0.0, [&g] { g.wait(); });
  EXPECT_THROW(g.wait(), fj::deadlock_error);
}

TEST(PriorityGroup, MoreGroupsThanSlotsOnOnePoolIsAConfigurationError) {
  fj::lazy_pool pool(1);
  std::vector<std::unique_ptr<fj::strict_priority_group>> groups;
  groups.reserve(fj::detail::pool_core::k_priority_sources);
  for (std::size_t i = 0; i < fj::detail::pool_core::k_priority_sources; ++i) {
    groups.push_back(std::make_unique<fj::strict_priority_group>(pool));
  }
  EXPECT_THROW(fj::strict_priority_group extra(pool), fj::invalid_config_error);
  groups.pop_back();
  fj::strict_priority_group again(pool);  // a slot is free again
  std::atomic<int> n{0};
  again.spawn(0.0, [&n] { n.fetch_add(1); });
  again.wait();
  EXPECT_EQ(n.load(), 1);
}

TEST(PriorityGroup, SleepingLazyWorkersWakeForPriorityTasks) {
  fj::lazy_pool pool(2);
  // Let both workers fall asleep.
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (pool.sleeping() < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  fj::relaxed_priority_group<16> g(pool);
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> n{0};
    g.spawn(0.0, [&n] { n.fetch_add(1); });
    g.wait();
    EXPECT_EQ(n.load(), 1);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// A group reused after wait(): the workers' credits (priority.md §10, "Credits") are settled at the end of
// each batch, so that pending() is zero after every wait() and the lazy workers fall asleep once the group
// has drained (a credit left behind would keep queued_ above zero, and them awake, for ever).
template <class Group>
void reused_group_settles(std::size_t workers) {
  fj::lazy_pool pool(workers);
  Group g(pool);
  for (int round = 0; round < 20; ++round) {
    std::atomic<std::uint64_t> count{0};
    g.spawn(0.0, [&] { tree(g, count, 5, 3, 1); });
    g.wait();
    EXPECT_EQ(count.load(), tree_size(5, 3));
    EXPECT_EQ(g.pending(), 0U);
  }
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (pool.sleeping() < workers && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(pool.sleeping(), workers);
}

TEST(PriorityGroup, AGroupReusedAfterWaitSettlesItsCountsAndLetsWorkersSleep) {
  reused_group_settles<fj::strict_priority_group>(1);
  reused_group_settles<fj::strict_priority_group>(2);
  reused_group_settles<fj::relaxed_priority_group<16>>(2);
  reused_group_settles<fj::no_priority_group>(3);
}

// A chain of tasks: each spawns the next until `left` reaches zero.
template <class Group>
void chain(Group& g, std::atomic<std::uint64_t>& count, int left) {
  count.fetch_add(1, std::memory_order_relaxed);
  if (left > 0) g.spawn(static_cast<double>(left), [&g, &count, left] { chain(g, count, left - 1); });
}

// A relaxed group fed from an ordinary thread (its outside index, priority.md §10) and kept busy by its own
// tasks for long: the outside index's view of the shared array moves on, so the array's blocks behind the
// worker are freed and their number stays bounded whatever the length of a batch. One worker, whose own view
// follows the tail as it runs the chain, so that only the outside index could pin blocks.
TEST(PriorityGroup, ARelaxedGroupFedFromAnOrdinaryThreadKeepsItsSharedArrayBounded) {
  fj::lazy_pool pool(1);
  fj::relaxed_priority_group<16> g(pool);
  constexpr int k_length = 6000;  // about 94 blocks of 64 positions per batch
  std::size_t most_blocks = 0;
  for (int batch = 0; batch < 8; ++batch) {
    std::atomic<std::uint64_t> count{0};
    g.spawn(0.0, [&] { chain(g, count, k_length); });
    g.wait();
    EXPECT_EQ(count.load(), std::uint64_t{k_length} + 1);
    most_blocks = std::max(most_blocks, g.storage().blocks_live());
  }
  // The outside index catches up every 256 takes of a worker: its view lags by a few blocks at most.
  EXPECT_LE(most_blocks, 16U);
}

// Task memory is kept per thread (detail/task_memory.hpp): a block freed on another thread is reused there,
// over-aligned and large blocks bypass the lists, and tasks spawned on one thread and run on others (the
// blocks move between threads) all run once.
TEST(PriorityGroup, TaskMemoryIsRecycledAcrossThreads) {
  using fj::detail::task_memory;
  void* const p = task_memory::allocate<8>(40);
  ASSERT_NE(p, nullptr);
  std::thread([p] {
    task_memory::deallocate<8>(p, 40);
    void* const q = task_memory::allocate<8>(48);  // the same size class
    if constexpr (fj::detail::task_memory_cached) {
      EXPECT_EQ(q, p);
    }
    task_memory::deallocate<8>(q, 48);
  }).join();
  void* const aligned = task_memory::allocate<64>(100);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(aligned) % 64, 0U);
  task_memory::deallocate<64>(aligned, 100);
  void* const large = task_memory::allocate<8>(4096);
  task_memory::deallocate<8>(large, 4096);

  fj::lazy_pool pool(3);
  fj::relaxed_priority_group<4> g(pool);
  std::atomic<int> ran{0};
  // A call larger than a task's inline bytes: each is a block of task memory.
  std::array<char, fj::priority_task::inline_bytes> padding{};
  static_assert(!fj::detail::stored_inline<void (*)(std::atomic<int>*, std::array<char, 48>),
                                           std::atomic<int>*, std::array<char, 48>>);
  for (int i = 0; i < 5000; ++i) {
    g.spawn(
        static_cast<double>(i % 13),
        [](std::atomic<int>* r, std::array<char, fj::priority_task::inline_bytes>) {
          r->fetch_add(1, std::memory_order_relaxed);
        },
        &ran, padding);
  }
  g.wait();
  EXPECT_EQ(ran.load(), 5000);
}

// Calls are stored in the task itself when the function and its arguments are trivially copyable and fit
// fj::priority_task::inline_bytes (priority_group.hpp), else on the heap.
struct small_node {
  std::uint64_t a;
  std::uint64_t b;
  int c;
  int d;
  int e;
};
struct alignas(16) over_aligned {
  int x;
};
using small_fn = void (*)(const void*, small_node);
static_assert(fj::detail::stored_inline<small_fn, const void*, small_node>);
static_assert(fj::detail::stored_inline<void (&)(const void*, small_node), const void*&, const small_node&>);
static_assert(sizeof(fj::detail::call_parts<small_fn, const void*, small_node>) == 48);
static_assert(!fj::detail::stored_inline<void (*)(std::string), std::string>);  // not trivial
static_assert(!fj::detail::stored_inline<void (*)(std::array<char, 41>), std::array<char, 41>>);  // too large
static_assert(!fj::detail::stored_inline<void (*)(over_aligned), over_aligned>);  // too aligned
static_assert(fj::detail::stored_inline<void (*)(std::reference_wrapper<int>), std::reference_wrapper<int>>);

// Every call a storage's group runs, each once, with the arguments it was spawned with.
struct call_log {
  explicit call_log(std::size_t n) : runs(n) {}
  std::vector<std::atomic<int>> runs;
  std::atomic<int> wrong{0};
  void ran(std::size_t index, bool right) {
    runs[index].fetch_add(1, std::memory_order_relaxed);
    if (!right) wrong.fetch_add(1, std::memory_order_relaxed);
  }
};

small_node node_for(std::size_t i) {
  return small_node{i * 3 + 1, ~i, static_cast<int>(i), -static_cast<int>(i), 7};
}

bool is_node_for(const small_node& n, std::size_t i) {
  const small_node e = node_for(i);
  return n.a == e.a && n.b == e.b && n.c == e.c && n.d == e.d && n.e == e.e;
}

template <class Group>
struct mixed_context;
template <class Group>
void spawn_mixed(Group& g, call_log& log, std::size_t first, std::size_t count,
                 const mixed_context<Group>* context);

template <class Group>
struct mixed_context {
  Group* group;
  call_log* log;
};

// The shape of a search's step (a function pointer, its context, a node of 32 bytes): stored inline.
template <class Group>
void spawning_inline_call(const mixed_context<Group>* context, small_node n) {
  const auto index = static_cast<std::size_t>(n.c);
  context->log->ran(index, is_node_for(n, index));
  spawn_mixed(*context->group, *context->log, index + 1, 3, context);  // the next three: heap, heap, inline
}

// Spawns calls first .. first + count - 1, cycling through: an inline function-pointer call that spawns
// more (first of every 4), a heap call with a std::string, a heap call too large to be inline, an inline
// lambda capturing references.
template <class Group>
void spawn_mixed(Group& g, call_log& log, std::size_t first, std::size_t count,
                 const mixed_context<Group>* context) {
  for (std::size_t i = first; i < first + count; ++i) {
    const auto priority = static_cast<double>(i % 7);
    switch (i % 4) {
      case 0:
        static_assert(fj::detail::stored_inline<void (*)(const mixed_context<Group>*, small_node),
                                                const mixed_context<Group>*, small_node>);
        g.spawn(priority, spawning_inline_call<Group>, context, node_for(i));
        break;
      case 1:
        g.spawn(
            priority,
            [&log](std::size_t index, const std::string& text) {
              log.ran(index, text == "call " + std::to_string(index));
            },
            i, "call " + std::to_string(i));
        break;
      case 2: {
        std::array<std::uint64_t, 8> big{};
        big.fill(i);
        g.spawn(
            priority,
            [&log](std::size_t index, const std::array<std::uint64_t, 8>& b) {
              log.ran(index,
                      std::all_of(b.begin(), b.end(), [index](std::uint64_t x) { return x == index; }));
            },
            i, big);
        break;
      }
      default: {
        const small_node n = node_for(i);
        g.spawn(priority, [&log, i, n] { log.ran(i, is_node_for(n, i)); });
        break;
      }
    }
  }
}

template <class Group>
void mixed_calls_each_run_once(fj::lazy_pool& pool) {
  // Calls 0, 4, 8, ... spawned from this thread; each spawns the three after it from a worker.
  constexpr std::size_t n = 400;
  call_log log(n);
  Group g(pool);
  const mixed_context<Group> context{&g, &log};
  for (std::size_t i = 0; i < n; i += 4) {
    spawn_mixed(g, log, i, 1, &context);
  }
  g.wait();
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(log.runs[i].load(), 1) << "call " << i;
  }
  EXPECT_EQ(log.wrong.load(), 0);
}

TEST(PriorityGroup, InlineAndHeapCallsEachRunOnceWithTheirArgumentsOnEachStorage) {
  fj::lazy_pool pool(2);
  mixed_calls_each_run_once<fj::strict_priority_group>(pool);
  mixed_calls_each_run_once<fj::relaxed_priority_group<4>>(pool);
  mixed_calls_each_run_once<fj::relaxed_priority_group<16>>(pool);
  mixed_calls_each_run_once<fj::no_priority_group>(pool);
}

void throwing_inline_call(int* ran, int value) {
  ++*ran;
  throw std::runtime_error("inline " + std::to_string(value));
}

TEST(PriorityGroup, AThrowingInlineCallReachesWaitAndTheGroupGoesOn) {
  static_assert(fj::detail::stored_inline<decltype(&throwing_inline_call), int*, int>);
  fj::lazy_pool pool(1);
  fj::relaxed_priority_group<16> g(pool);
  int ran = 0;
  g.spawn(1.0, throwing_inline_call, &ran, 42);
  try {
    g.wait();
    ADD_FAILURE() << "wait() did not rethrow";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "inline 42");
  }
  EXPECT_EQ(ran, 1);
  // A heap call after it, and one more inline call: the group is reusable.
  g.spawn(2.0, [&ran](const std::string& s) { ran += static_cast<int>(s.size()); }, std::string("abc"));
  g.spawn(3.0, [&ran] { ++ran; });
  EXPECT_NO_THROW(g.wait());
  EXPECT_EQ(ran, 5);
}

}  // namespace
