// In steady state a plain spawn calls no allocator: its record is a pointer bump on the worker's segmented
// stack and the deque of spawned children does not grow (docs/protocols/spawn.md "State"), also when thieves
// take children and the owner takes work back from them at its sync. This binary replaces the global operator
// new/delete to count calls (all threads: the thieves' allocations count too).

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <cstdint>

#include "support/counting_new.hpp"
#include "support/fib.hpp"
#include "support/spawn_fib.hpp"
#include "support/test_config.hpp"

namespace {

using fj::test::spawn_fib;

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
  long const before = fj::test::allocations.load(std::memory_order_relaxed);
  for (int i = 0; i < measured; ++i) out.result = spawn_fib(n);
  // relaxed is enough: the thieves' increments happen before the syncs returned (the acquire at the sync).
  out.allocations = fj::test::allocations.load(std::memory_order_relaxed) - before;
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
