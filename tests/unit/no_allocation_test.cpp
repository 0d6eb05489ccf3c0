// In steady state a fork calls no allocator: frames go on the worker's segmented stack and the deque does not
// grow. This binary replaces the global operator new/delete to count calls.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <cstdlib>
#include <new>

#include "support/fib.hpp"
#include "support/test_config.hpp"

namespace {
std::atomic<long> allocations{0};
}  // namespace

// clang's TSan runtime defines the global operator new itself, so these replacements are left out there
// (test_config.hpp) and the counting test is skipped.
#if FJ_TEST_CAN_REPLACE_GLOBAL_NEW
// g++ cannot see that these replacements pair malloc with free consistently and warns about the pairing.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace {

using fj::test::fib;

// Runs fib(n) twice inside one root: the first warms the stack up, the second is counted.
fj::task<long> allocations_in_second_run(int n) {
  long warm = 0;
  co_await fj::call(&warm, fib, n);
  long const before = allocations.load(std::memory_order_relaxed);
  long r = 0;
  co_await fj::call(&r, fib, n);
  long const after = allocations.load(std::memory_order_relaxed);
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
