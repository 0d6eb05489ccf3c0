// In steady state a fork calls no allocator: frames go on the worker's segmented stack and the deque does not
// grow. This binary replaces the global operator new/delete to count calls.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>

#include "support/counting_new.hpp"
#include "support/fib.hpp"
#include "support/test_config.hpp"

namespace {

using fj::test::fib;

// Runs fib(n) twice inside one root: the first warms the stack up, the second is counted.
fj::task<long> allocations_in_second_run(int n) {
  long warm = 0;
  co_await fj::call(&warm, fib, n);
  long const before = fj::test::allocations.load(std::memory_order_relaxed);
  long r = 0;
  co_await fj::call(&r, fib, n);
  long const after = fj::test::allocations.load(std::memory_order_relaxed);
  if (r != warm) co_return -1;
  co_return after - before;
}

TEST(NoAllocation, AMillionForksCallNoAllocatorInSteadyState) {
  if (!fj::test::can_replace_global_new)
    GTEST_SKIP() << "this sanitizer runtime owns the global operator new";
  fj::busy_pool pool(1);
  // fib(30) performs 1,346,268 forks.
  int const n = fj::test::scale() == 1 ? 30 : 24;
  EXPECT_EQ(fj::sync_wait(pool, allocations_in_second_run, n), 0);
}

}  // namespace
