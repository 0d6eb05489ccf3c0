// When a worker's deque is full and the larger buffer cannot be allocated, a fork runs as a call: its parent
// is not pushed (so it cannot be stolen), the child still runs, and the result is the serial one. The deque
// itself reports the failure from try_push() and is left unchanged. This binary replaces the global
// operator new[] (which allocates the deque's slot arrays, and nothing else in the runtime) so that it can be
// made to fail.

#include <gtest/gtest.h>
#include <forkjoin/ext/deque.hpp>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "support/test_config.hpp"

namespace {
std::atomic<bool> fail_array_new{false};
std::atomic<long> array_news_failed{0};
}  // namespace

#if FJ_TEST_CAN_REPLACE_GLOBAL_NEW
// g++ cannot see that these replacements pair malloc with free consistently and warns about the pairing.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new[](std::size_t n) {
  // relaxed: the flag is set and cleared by the thread that makes the allocations under test.
  if (fail_array_new.load(std::memory_order_relaxed)) {
    array_news_failed.fetch_add(1, std::memory_order_relaxed);
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace {

// Fails every operator new[] while it lives (on any thread; the tests below allocate from one).
class array_new_fails {
 public:
  array_new_fails() noexcept { fail_array_new.store(true, std::memory_order_relaxed); }
  ~array_new_fails() { fail_array_new.store(false, std::memory_order_relaxed); }
  array_new_fails(const array_new_fails&) = delete;
  array_new_fails& operator=(const array_new_fails&) = delete;
};

TEST(DequeGrowthFailure, TryPushReportsItAndLeavesTheDequeUnchanged) {
  if (!fj::test::can_replace_global_new)
    GTEST_SKIP() << "this sanitizer runtime owns the global operator new";
  fj::deque<std::int64_t> d(4);
  auto owner = d.owner();
  for (std::int64_t i = 1; i <= 4; ++i) ASSERT_TRUE(owner.try_push(i));
  {
    array_new_fails failing;
    EXPECT_FALSE(owner.try_push(5));
    EXPECT_THROW(owner.push(5), std::bad_alloc);
  }
  EXPECT_EQ(d.capacity(), 4u);
  auto thief = d.thief();
  auto stolen = thief.steal();
  ASSERT_TRUE(stolen);
  EXPECT_EQ(stolen.value, 1);
  for (std::int64_t expect = 4; expect >= 2; --expect) {
    auto item = owner.pop();
    ASSERT_TRUE(item.has_value());
    EXPECT_EQ(*item, expect);
  }
  EXPECT_FALSE(owner.pop().has_value());
  // Once memory is back the deque grows as usual.
  for (std::int64_t i = 1; i <= 9; ++i) ASSERT_TRUE(owner.try_push(i));
  EXPECT_EQ(d.capacity(), 16u);
}

// A chain of nested forks deeper than the deque's 1024 slots: every level keeps its parent on the deque.
fj::task<long> fork_chain(int depth) {
  if (depth == 0) co_return 0;
  long below = 0;
  co_await fj::fork(&below, fork_chain, depth - 1);
  co_await fj::join;
  co_return below + depth;
}

fj::task<long> fork_chain_without_array_new(int depth) {
  array_new_fails failing;
  long sum = 0;
  co_await fj::call(&sum, fork_chain, depth);
  co_return sum;
}

// With one worker every fork below the 1024th level finds the deque full; with thieves taking the oldest
// parents it fills later or not at all, so there only the results are checked.
template <class Pool>
void forks_run_as_calls_when_the_deque_cannot_grow(Pool& pool, bool single_worker) {
  int const depth = 3000;  // deque growth at 1024 and 2048 pushed parents
  long const failed_before = array_news_failed.load();
  EXPECT_EQ(fj::sync_wait(pool, fork_chain_without_array_new, depth), long{depth} * (depth + 1) / 2);
  std::uint64_t as_calls = 0;
  for (const auto& s : pool.stats()) as_calls += s.forks_run_as_calls;
  if (single_worker) {
    EXPECT_GT(array_news_failed.load(), failed_before);
    EXPECT_GE(as_calls, std::uint64_t{depth - 1024});
  }
  // The pool is unharmed: the same chain runs again, growing the deque now that memory is back.
  EXPECT_EQ(fj::sync_wait(pool, fork_chain, depth), long{depth} * (depth + 1) / 2);
}

TEST(DequeGrowthFailure, ForksRunAsCallsOnAUnitPool) {
  if (!fj::test::can_replace_global_new)
    GTEST_SKIP() << "this sanitizer runtime owns the global operator new";
  fj::unit_pool pool;
  forks_run_as_calls_when_the_deque_cannot_grow(pool, true);
}

TEST(DequeGrowthFailure, ForksRunAsCallsOnABusyPoolWithThieves) {
  if (!fj::test::can_replace_global_new)
    GTEST_SKIP() << "this sanitizer runtime owns the global operator new";
  fj::busy_pool pool(2);
  for (int round = 0; round < 20; ++round) forks_run_as_calls_when_the_deque_cannot_grow(pool, false);
}

}  // namespace
