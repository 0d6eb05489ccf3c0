// In steady state a plain spawn calls no allocator: its record is a pointer bump on the worker's segmented
// stack and the deque of spawned children does not grow (docs/protocols/spawn.md "State"), also when thieves
// take children and the owner takes work back from them at its sync. This binary replaces the global operator
// new/delete to count calls (all threads: the thieves' allocations count too).

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "support/fib.hpp"
#include "support/test_config.hpp"

namespace {
std::atomic<long> allocations{0};
}  // namespace

// clang's TSan runtime defines the global operator new itself, so these replacements are left out there
// (test_config.hpp) and the counting tests are skipped.
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

// fib with one spawn per inner node and no cutoff: fib(n) spawns fib(n + 1) - 1 children.
long spawn_fib(int n) {
  if (n < 2) return n;
  long a = 0;
  fj::scope s;
  s.spawn(&a, spawn_fib, n - 1);
  long const b = spawn_fib(n - 2);
  s.sync();
  return a + b;
}

struct counted_runs {
  long result = 0;
  long allocations = 0;  // during the measured runs
};

// Runs on a worker (a plain root): `warm_up` runs warm the stacks and deques up, then `measured` runs are
// counted. Each run must return the right value, so that a run that spawned nothing cannot pass.
counted_runs allocations_after_warm_up(int n, int warm_up, int measured) {
  counted_runs out;
  for (int i = 0; i < warm_up; ++i) {
    if (spawn_fib(n) != fj::test::fib_value(n)) return {-1, 0};
  }
  long const before = allocations.load(std::memory_order_relaxed);
  for (int i = 0; i < measured; ++i) out.result = spawn_fib(n);
  // relaxed is enough: the thieves' increments happen before the syncs returned (the acquire at the sync).
  out.allocations = allocations.load(std::memory_order_relaxed) - before;
  return out;
}

// fib(30) spawns 1,346,268 children; the scaled-down builds spawn fib(25) = 121,392 per run.
int spawn_depth() { return fj::test::scale() == 1 ? 30 : 25; }

TEST(SpawnNoAllocation, AMillionSpawnsOnOneWorkerCallNoAllocatorInSteadyState) {
  if (!fj::test::can_replace_global_new)
    GTEST_SKIP() << "this sanitizer runtime owns the global operator new";
  fj::busy_pool pool(1);
  int const n = spawn_depth();
  counted_runs const r = fj::sync_wait(pool, allocations_after_warm_up, n, 1, 1);
  EXPECT_EQ(r.result, fj::test::fib_value(n));
  EXPECT_EQ(r.allocations, 0);
}

TEST(SpawnNoAllocation, AMillionSpawnsOnTwoWorkersWithStealsCallNoAllocatorInSteadyState) {
  if (!fj::test::can_replace_global_new)
    GTEST_SKIP() << "this sanitizer runtime owns the global operator new";
  fj::busy_pool pool(2);
  int const n = spawn_depth();
  // Which children are stolen differs from run to run, so one warm-up run may not have grown every stack
  // and deque to what a later run needs: a few runs, then several counted ones.
  counted_runs const r = fj::sync_wait(pool, allocations_after_warm_up, n, 3, 3);
  EXPECT_EQ(r.result, fj::test::fib_value(n));
  EXPECT_EQ(r.allocations, 0);
  std::uint64_t steals = 0;
  for (const auto& w : pool.stats()) steals += w.steals;
  EXPECT_GT(steals, 0u) << "no child was stolen: the two-worker case was not exercised";
}

}  // namespace
