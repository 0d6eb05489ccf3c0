// fj::scratch: temporary arrays on the worker's segmented stack.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "support/test_config.hpp"

namespace {

fj::task<long> square(long x) { co_return x* x; }

fj::task<long> sum_of_squares(int n) {
  fj::scratch<long> partial(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) co_await fj::fork(&partial[static_cast<std::size_t>(i)], square, i);
  co_await fj::join;
  co_return std::accumulate(partial.begin(), partial.end(), 0L);
}

TEST(Scratch, HoldsChildResultsAcrossAForkJoinScope) {
  fj::busy_pool pool(4);
  for (int rep = 0; rep < 20; ++rep) EXPECT_EQ(fj::sync_wait(pool, sum_of_squares, 100), 328350);
}

fj::task<long> nested_scratch(int depth) {
  if (depth == 0) co_return 0;
  fj::scratch<int> a(3);
  fj::scratch<std::string> b(2);
  EXPECT_EQ(a[0], 0);  // value-initialised
  EXPECT_TRUE(b[1].empty());
  b[0] = "x";
  long below = 0;
  co_await fj::fork(&below, nested_scratch, depth - 1);
  co_await fj::join;
  co_return below + static_cast<long>(a.size() + b.size());
}

TEST(Scratch, NestedArraysInRecursiveTasksAreFreedInOrder) {
  fj::busy_pool pool(2);
  EXPECT_EQ(fj::sync_wait(pool, nested_scratch, 200), 200 * 5);
}

fj::task<std::size_t> big_scratch(std::size_t n) {
  fj::scratch<char> big(n);
  big[n - 1] = 'z';
  co_return big.size();
}

TEST(Scratch, LargeArraysGrowTheSegmentedStack) {
  fj::unit_pool pool;
  EXPECT_EQ(fj::sync_wait(pool, big_scratch, std::size_t{8} << 20), std::size_t{8} << 20);
}

TEST(Scratch, CreatingOneOutsideAWorkerThrows) {
  EXPECT_THROW(fj::scratch<int> s(4), fj::not_in_worker_error);
}

fj::task<void> free_out_of_order() {
  std::optional<fj::scratch<int>> first(std::in_place, 4);
  fj::scratch<int> second(4);
  first.reset();  // freed while `second`, created later, is still alive
  co_return;
}

TEST(ScratchDeathTest, FreeingOutOfOrderStopsWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        fj::unit_pool pool;
        fj::sync_wait(pool, free_out_of_order);
      },
      "fj: an fj::scratch array was freed out of order");
}

// A task holding scratch arrays throws between a fork and its join after its continuation was stolen: the
// arrays die while unwinding on the thief, with the forked child's frame still above them on the original
// stack. They are abandoned there and freed at the implicit join; the exception reaches sync_wait.
struct stolen_flag {
  std::atomic<bool> continuation_ran{false};
};

fj::task<void> wait_until_stolen(stolen_flag* flag) {
  while (!flag->continuation_ran.load(std::memory_order_acquire)) {
  }
  co_return;
}

fj::task<long> throw_after_steal(bool catch_inside, std::size_t n) {
  fj::scratch<long> outer(3);  // lives across the whole task: must survive the abandoned ones
  outer[0] = 7;
  stolen_flag flag;
  try {
    fj::scratch<long> a(n);
    fj::scratch<char> b(1);
    a[0] = 1;
    co_await fj::fork(wait_until_stolen, &flag);
    flag.continuation_ran.store(true, std::memory_order_release);
    throw std::runtime_error("after the steal");
  } catch (const std::runtime_error&) {
    if (!catch_inside) throw;
  }
  co_await fj::join;
  fj::scratch<long> after(4);  // allocated after the abandoned arrays were freed
  after[0] = outer[0];
  co_return after[0];
}

TEST(Scratch, ArraysDyingOnAThiefBeforeTheJoinAreFreedAtTheJoin) {
  fj::busy_pool pool(2);
  for (int rep = 0; rep < 200; ++rep) {
    std::size_t const n = rep % 3 == 0 ? 3000 : 5;  // every third needs a stacklet of its own
    EXPECT_THROW((void)fj::sync_wait(pool, throw_after_steal, false, n), std::runtime_error);
    EXPECT_EQ(fj::sync_wait(pool, throw_after_steal, true, n), 7);
  }
  std::uint64_t steals = 0;
  for (const fj::worker_stats& w : pool.stats()) steals += w.steals;
  EXPECT_GE(steals, 400u);  // every run's continuation was stolen: the child waits for it
}

// Children write their results into an abandoned array: the documented fork(&partial[i], ...) pattern with an
// exception before the join. The queue node that abandoning needs must not lie where they write (found in
// review: it was the array's first 16 bytes, a child's result overwrote the node's `next` and the join
// followed it; a result in the first slot made the block unrecognisable and the stack aborted).
struct late_writer {
  std::atomic<bool> parent_threw{false};
};

fj::task<long> write_after_the_parent_threw(late_writer* w, long value) {
  while (!w->parent_threw.load(std::memory_order_acquire)) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));  // meanwhile the parent abandons the array
  co_return value;
}

fj::task<long> fork_into_an_array_then_throw(late_writer* w, std::size_t slot) {
  fj::scratch<long> out(2);
  co_await fj::fork(&out[slot], write_after_the_parent_threw, w, 1000L);
  // The child waits for this store, so another worker runs this continuation: the array dies on a thief.
  w->parent_threw.store(true, std::memory_order_release);
  throw std::runtime_error("before the join");
}

TEST(Scratch, ChildrenWritingIntoAnAbandonedArrayDoNotCorruptTheStack) {
  fj::busy_pool pool(2);
  for (int rep = 0; rep < 20; ++rep) {
    late_writer w;
    EXPECT_THROW(
        (void)fj::sync_wait(pool, fork_into_an_array_then_throw, &w, static_cast<std::size_t>(rep % 2)),
        std::runtime_error);
    EXPECT_EQ(fj::sync_wait(pool, throw_after_steal, true, std::size_t{5}), 7);  // the stacks still work
  }
}

}  // namespace
