// Results, continuation stealing and the serial order of fj::task, fj::fork, fj::call and fj::join.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/fib.hpp"
#include "support/test_config.hpp"

namespace {

using fj::test::fib;

long fib_serial(int n) { return fj::test::fib_value(n); }

fj::task<void> set_flag(bool* flag) {
  *flag = true;
  co_return;
}

fj::task<std::unique_ptr<int>> make_unique_int(int v) { co_return std::make_unique<int>(v); }

fj::task<std::string> concat(std::string a, std::string b) { co_return a + b; }

struct math {
  static fj::task<int> square(int x) { co_return x* x; }
};

TEST(Task, ForkCallJoinComputeFibonacciOnEveryPool) {
  fj::unit_pool unit;
  fj::busy_pool busy(2);
  EXPECT_EQ(fj::sync_wait(unit, fib, 20), fib_serial(20));
  EXPECT_EQ(fj::sync_wait(busy, fib, 20), fib_serial(20));
}

TEST(Task, VoidTaskRunsAndReturnsNothing) {
  fj::busy_pool pool(2);
  bool flag = false;
  fj::sync_wait(pool, set_flag, &flag);
  EXPECT_TRUE(flag);
}

TEST(Task, MoveOnlyResultsTravelThroughOutAndSyncWait) {
  fj::busy_pool pool(2);
  std::unique_ptr<int> root = fj::sync_wait(pool, make_unique_int, 7);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(*root, 7);
  auto parent = [](int v) -> fj::task<int> {
    std::unique_ptr<int> a;
    std::unique_ptr<int> b;
    co_await fj::fork(&a, make_unique_int, v);
    co_await fj::call(&b, make_unique_int, v + 1);
    co_await fj::join;
    co_return *a + *b;
  };
  EXPECT_EQ(fj::sync_wait(pool, parent, 10), 21);
}

TEST(Task, ResultsAreWrittenIntoTheParentsVariablesThroughOut) {
  fj::busy_pool pool(2);
  auto parent = []() -> fj::task<std::vector<std::string>> {
    std::vector<std::string> parts(3);
    co_await fj::fork(&parts[0], concat, std::string("a"), std::string("b"));
    co_await fj::fork(&parts[1], concat, std::string("c"), std::string("d"));
    co_await fj::call(&parts[2], concat, std::string("e"), std::string("f"));
    co_await fj::join;
    co_return parts;
  };
  EXPECT_EQ(fj::sync_wait(pool, parent), (std::vector<std::string>{"ab", "cd", "ef"}));
}

TEST(Task, ResultCanBeDiscardedByForkingWithoutOut) {
  fj::busy_pool pool(2);
  auto parent = []() -> fj::task<int> {
    co_await fj::fork(math::square, 3);
    co_await fj::call(math::square, 4);
    co_await fj::join;
    co_return 1;
  };
  EXPECT_EQ(fj::sync_wait(pool, parent), 1);
}

// The result pointer reaches the child's promise through a thread-local that each fork and call sets just
// before it creates the child (promise<T>::out_): a fork without out, or a root made by sync_wait, must not
// pick up the pointer that an earlier fork on the same thread left there.
TEST(Task, AResultPointerIsNeverReusedByALaterForkWithoutOutOrByARoot) {
  fj::busy_pool outer(1);
  fj::unit_pool inner;
  auto parent = [&inner]() -> fj::task<int> {
    int kept = 0;
    co_await fj::fork(&kept, math::square, 3);
    co_await fj::fork(math::square, 4);  // discarded: must not overwrite kept
    co_await fj::call(math::square, 5);  // discarded
    co_await fj::join;
    int from_root = 0;
    co_await fj::call(&from_root, math::square, 6);
    // A root made on this thread right after a fork with out (another pool's: not a deadlock): its result
    // must come back from sync_wait, not go to from_root.
    const int root_result = fj::sync_wait(inner, math::square, 7);
    co_return kept * 10000 + from_root * 100 + root_result;
  };
  EXPECT_EQ(fj::sync_wait(outer, parent), 9 * 10000 + 36 * 100 + 49);
}

TEST(Task, StaticMemberFunctionsAndLambdasAreTasks) {
  fj::unit_pool pool;
  EXPECT_EQ(fj::sync_wait(pool, math::square, 9), 81);
  auto lambda = [](int x) -> fj::task<int> { co_return x + 1; };
  EXPECT_EQ(fj::sync_wait(pool, lambda, 41), 42);
}

TEST(Task, RecursiveLambdaForksThroughItsSelfParameter) {
  fj::busy_pool pool(2);
  auto rfib = fj::recursive([](auto self, int n) -> fj::task<long> {
    if (n < 2) co_return n;
    long a = 0;
    long b = 0;
    co_await fj::fork(&a, self, n - 1);
    co_await fj::call(&b, self, n - 2);
    co_await fj::join;
    co_return a + b;
  });
  EXPECT_EQ(fj::sync_wait(pool, rfib, 18), fib_serial(18));
}

TEST(Task, JoinWithoutForksIsANoOp) {
  fj::unit_pool pool;
  auto parent = []() -> fj::task<int> {
    co_await fj::join;
    int x = 0;
    co_await fj::call(&x, math::square, 5);
    co_await fj::join;
    co_await fj::join;
    co_return x;
  };
  EXPECT_EQ(fj::sync_wait(pool, parent), 25);
}

// The order of events of a fork-join program on one worker is the serial program's order.
fj::task<void> record(std::vector<int>* log, int id, int depth) {
  log->push_back(id);
  if (depth > 0) {
    co_await fj::fork(record, log, id * 10 + 1, depth - 1);
    log->push_back(-id);
    co_await fj::call(record, log, id * 10 + 2, depth - 1);
    co_await fj::join;
  }
  log->push_back(id + 1000);
}

void record_serial(std::vector<int>* log, int id, int depth) {
  log->push_back(id);
  if (depth > 0) {
    record_serial(log, id * 10 + 1, depth - 1);
    log->push_back(-id);
    record_serial(log, id * 10 + 2, depth - 1);
  }
  log->push_back(id + 1000);
}

TEST(Task, UnitPoolExecutesInExactlyTheSerialOrder) {
  fj::unit_pool pool;
  std::vector<int> parallel;
  std::vector<int> serial;
  fj::sync_wait(pool, record, &parallel, 1, 6);
  record_serial(&serial, 1, 6);
  EXPECT_EQ(parallel, serial);
}

TEST(Task, BusyPoolWithOneWorkerExecutesInTheSerialOrder) {
  fj::busy_pool pool(1);
  std::vector<int> parallel;
  std::vector<int> serial;
  fj::sync_wait(pool, record, &parallel, 1, 6);
  record_serial(&serial, 1, 6);
  EXPECT_EQ(parallel, serial);
}

// Continuation stealing: the child of a fork starts at once on the thread that forked it.
fj::task<int> child_starts_on(std::thread::id parent_thread) {
  co_return std::this_thread::get_id() == parent_thread ? 1 : 0;
}

fj::task<int> forks_report_same_thread(int n) {
  std::vector<int> same(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < same.size(); ++i) {
    co_await fj::fork(&same[i], child_starts_on, std::this_thread::get_id());
  }
  co_await fj::join;
  int count = 0;
  for (int c : same) count += c;
  co_return count;
}

TEST(Task, ForkedChildStartsImmediatelyOnTheForkingWorker) {
  fj::busy_pool pool(4);
  // Each child compares the thread it starts on with the thread its parent was on when it forked.
  EXPECT_EQ(fj::sync_wait(pool, forks_report_same_thread, 500), 500);
}

// A task that forks and returns without joining joins implicitly: every child has finished and written its
// result before the parent's parent continues.
fj::task<void> fork_without_join(std::atomic<int>* done, int width, int depth) {
  for (int i = 0; i < width; ++i) {
    if (depth > 0) {
      co_await fj::fork(fork_without_join, done, width, depth - 1);
    } else {
      done->fetch_add(1, std::memory_order_relaxed);
    }
  }
}

fj::task<int> count_after_implicit_joins(int width, int depth) {
  std::atomic<int> done{0};
  co_await fj::call(fork_without_join, &done, width, depth);
  co_return done.load(std::memory_order_relaxed);
}

TEST(Task, ReturningWithoutJoinJoinsImplicitly) {
  for (std::size_t workers : {1u, 2u, 4u}) {
    fj::busy_pool pool(workers);
    for (int rep = 0; rep < 20; ++rep) {
      EXPECT_EQ(fj::sync_wait(pool, count_after_implicit_joins, 4, 5), 4 * 4 * 4 * 4 * 4 * 4);
    }
  }
}

TEST(Task, ManyJoinScopesInOneTaskEachWaitForTheirChildren) {
  fj::busy_pool pool(4);
  auto parent = []() -> fj::task<long> {
    long total = 0;
    for (int scope = 0; scope < 50; ++scope) {
      long r[4] = {};
      for (int i = 0; i < 4; ++i) co_await fj::fork(&r[i], fib, 12 + i % 3);
      co_await fj::join;
      total += r[0] + r[1] + r[2] + r[3];
    }
    co_return total;
  };
  long const per_scope = fib_serial(12) + fib_serial(13) + fib_serial(14) + fib_serial(12);
  EXPECT_EQ(fj::sync_wait(pool, parent), 50 * per_scope);
}

// The child spins until the parent's continuation has run, which only a thief can make happen: one steal is
// certain as soon as the other worker gets a core (fib alone found none in 50 runs on a loaded 2-core
// machine).
fj::task<void> spin_until_set(std::atomic<bool>* flag) {
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!flag->load(std::memory_order_acquire) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  co_return;
}

fj::task<long> fork_then_fib(int n) {
  std::atomic<bool> continuation_ran{false};
  co_await fj::fork(spin_until_set, &continuation_ran);
  continuation_ran.store(true, std::memory_order_release);
  long r = 0;
  co_await fj::call(&r, fib, n);
  co_await fj::join;
  co_return r;
}

TEST(Task, TwoWorkersStealWorkFromEachOther) {
  fj::busy_pool pool(2);
  for (int rep = 0; rep < 20; ++rep) {
    EXPECT_EQ(fj::sync_wait(pool, fib, 22), fib_serial(22));
    EXPECT_EQ(fj::sync_wait(pool, fork_then_fib, 18), fib_serial(18));
  }
  std::uint64_t steals = 0;
  for (const auto& s : pool.stats()) steals += s.steals;
  EXPECT_GE(steals, 20u) << "each fork_then_fib run needs a steal to finish within its 60 s deadline";
}

}  // namespace

// Counts live instances, so a test can tell whether the runtime destroyed a task's parameter copies.
struct counted {
  static inline std::atomic<long> live{0};
  int value;
  explicit counted(int v) : value(v) { live.fetch_add(1, std::memory_order_relaxed); }
  counted(const counted& other) : value(other.value) { live.fetch_add(1, std::memory_order_relaxed); }
  counted& operator=(const counted&) = default;
  ~counted() { live.fetch_sub(1, std::memory_order_relaxed); }
};

fj::task<long> sum_counted(counted c, int depth) {
  if (depth == 0) co_return c.value;
  long a = 0;
  long b = 0;
  co_await fj::fork(&a, sum_counted, counted(c.value + 1), depth - 1);
  co_await fj::call(&b, sum_counted, c, depth - 1);
  co_await fj::join;
  co_return a + b;
}

// A frame whose parameters are all trivially destructible is freed without its destroy function (the fast
// path of final_awaiter); one with a parameter that has a destructor must still run it, on every pool.
TEST(Task, ParameterCopiesWithDestructorsAreDestroyedWhenTheTaskFinishes) {
  fj::unit_pool unit;
  fj::busy_pool busy(4);
  long const expect = [] {
    long total = 0;
    for (int mask = 0; mask < (1 << 10); ++mask) total += __builtin_popcount(static_cast<unsigned>(mask));
    return total;  // sum over the 2^10 leaves of the number of forked (value + 1) steps on their path
  }();
  for (int rep = 0; rep < 20; ++rep) {
    EXPECT_EQ(fj::sync_wait(unit, sum_counted, counted(0), 10), expect);
    EXPECT_EQ(fj::sync_wait(busy, sum_counted, counted(0), 10), expect);
  }
  EXPECT_EQ(counted::live.load(), 0);
}
