// Pools: construction errors, misuse, concurrent roots, lifetimes, and destruction with work in flight.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/fib.hpp"
#include "support/test_config.hpp"

namespace {

using fj::test::fib;

constexpr long fib_of_20 = 6765;

// The scheduler loop is compiled into the library and shares deques, frames and stacks with this code, so
// the two must be built in the same modes (detail/build_mode.hpp); build_mode_mismatch_test.cpp checks the
// refusal when they are not.
TEST(Pool, TheLibraryIsBuiltInTheModesOfTheCodeThatUsesIt) {
  EXPECT_EQ(fj::detail::k_build_mode, fj::detail::library_build_mode());
}

TEST(Pool, ZeroWorkersIsAConfigurationError) {
  EXPECT_THROW(fj::busy_pool pool(0), fj::invalid_config_error);
  EXPECT_THROW(fj::busy_pool pool(fj::pool_options{.workers = 0}), fj::invalid_config_error);
}

fj::task<long> call_chain(int depth) {
  if (depth == 0) co_return 0;
  long r = 0;
  co_await fj::call(&r, call_chain, depth - 1);
  co_return r + 1;
}

TEST(Pool, UnitPoolTakesOptionsButOnlyOneWorker) {
  EXPECT_THROW(fj::unit_pool pool(fj::pool_options{.workers = 2}), fj::invalid_config_error);
  fj::unit_pool pool(fj::pool_options{.workers = 1, .stack_budget = std::size_t{64} * 1024});
  EXPECT_EQ(fj::sync_wait(pool, call_chain, 100), 100);
  EXPECT_THROW((void)fj::sync_wait(pool, call_chain, 100000), fj::stack_budget_error);
  EXPECT_EQ(fj::sync_wait(pool, call_chain, 100), 100);
}

TEST(Pool, DefaultBusyPoolHasOneWorkerPerHardwareThread) {
  fj::busy_pool pool;
  EXPECT_EQ(pool.size(), fj::default_worker_count());
  EXPECT_EQ(fj::sync_wait(pool, fib, 20), fib_of_20);
}

TEST(Pool, CreatingATaskOutsideAWorkerThrowsNotInWorker) {
  EXPECT_THROW((void)fib(3), fj::not_in_worker_error);
}

fj::task<int> sync_wait_inside(fj::busy_pool* pool) {
  try {
    (void)fj::sync_wait(*pool, fib, 3);
  } catch (const fj::deadlock_error&) {
    co_return 1;
  }
  co_return 0;
}

TEST(Pool, SyncWaitFromOneOfThePoolsOwnWorkersThrowsDeadlockError) {
  fj::busy_pool pool(2);
  EXPECT_EQ(fj::sync_wait(pool, sync_wait_inside, &pool), 1);
}

fj::task<long> sync_wait_on_other(fj::busy_pool* other) { co_return fj::sync_wait(*other, fib, 20); }

TEST(Pool, SyncWaitFromAWorkerOfAnotherPoolBlocksThatWorkerAndWorks) {
  fj::busy_pool outer(2);
  fj::busy_pool inner(2);
  EXPECT_EQ(fj::sync_wait(outer, sync_wait_on_other, &inner), fib_of_20);
}

TEST(Pool, ManyThreadsCanSyncWaitOnOnePoolAtOnce) {
  fj::busy_pool pool(2);
  constexpr int threads = 8;
  int const per_thread = static_cast<int>(fj::test::scaled(50, 5));
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  callers.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    callers.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        int const n = 10 + (t + i) % 8;
        long expect = 0;
        long next = 1;
        for (int k = 0; k < n; ++k) {
          long const s = expect + next;
          expect = next;
          next = s;
        }
        if (fj::sync_wait(pool, fib, n) != expect) wrong.fetch_add(1);
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Pool, PoolsCanBeCreatedAndDestroyedRepeatedly) {
  int const rounds = static_cast<int>(fj::test::scaled(40, 5));
  for (int i = 0; i < rounds; ++i) {
    fj::busy_pool pool(1 + static_cast<std::size_t>(i % 4));
    EXPECT_EQ(fj::sync_wait(pool, fib, 15), 610);
  }
}

TEST(Pool, UnitAndBusyPoolsWorkSideBySide) {
  fj::unit_pool unit;
  fj::busy_pool busy(2);
  std::thread t([&] {
    for (int i = 0; i < 20; ++i) EXPECT_EQ(fj::sync_wait(unit, fib, 18), 2584);
  });
  for (int i = 0; i < 20; ++i) EXPECT_EQ(fj::sync_wait(busy, fib, 18), 2584);
  t.join();
}

fj::task<int> wait_for_release(std::atomic<bool>* started, std::atomic<bool>* release) {
  started->store(true);
  while (!release->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  co_return 5;
}

TEST(Pool, DestroyingAPoolWithWorkInFlightWaitsForTheWork) {
  std::atomic<bool> started{false};
  std::atomic<bool> release{false};
  std::optional<fj::busy_pool> pool(std::in_place, 2);
  std::atomic<int> result{0};
  std::thread caller([&] { result = fj::sync_wait(*pool, wait_for_release, &started, &release); });
  while (!started.load()) std::this_thread::yield();
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    release.store(true);
  });
  pool.reset();  // blocks until the root has finished
  EXPECT_TRUE(release.load());
  caller.join();
  releaser.join();
  EXPECT_EQ(result.load(), 5);
}

TEST(Pool, PinnedPoolsRunAndSayHowTheyArePlaced) {
  fj::busy_pool pinned(fj::pool_options{.workers = 1, .pinning = fj::pin_policy::cores});
  EXPECT_EQ(fj::sync_wait(pinned, fib, 20), fib_of_20);
  EXPECT_NE(pinned.description().find("pinned one per core"), std::string::npos) << pinned.description();
  fj::lazy_pool unpinned(2);
  EXPECT_NE(unpinned.description().find("not pinned"), std::string::npos) << unpinned.description();
  // More workers than cores: nobody is pinned, whatever was asked.
  fj::busy_pool crowded(fj::pool_options{.workers = 64, .pinning = fj::pin_policy::cores});
  EXPECT_EQ(fj::sync_wait(crowded, fib, 20), fib_of_20);
  EXPECT_NE(crowded.description().find("oversubscribed"), std::string::npos) << crowded.description();
}

TEST(Pool, StatsCountRootsRun) {
  fj::busy_pool pool(2);
  for (int i = 0; i < 5; ++i) (void)fj::sync_wait(pool, fib, 10);
  std::uint64_t roots = 0;
  for (const auto& s : pool.stats()) roots += s.roots_run;
  EXPECT_EQ(roots, 5u);
}

// Every steal from a deque in asymmetric mode paid exactly one membarrier, and no other attempt more than
// one; without asymmetric fences there are none (docs/protocols/deque.md, "One heavy fence per steal").
TEST(Pool, StatsCountOneHeavyFencePerStealAtMost) {
  fj::busy_pool pool(4);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(fj::sync_wait(pool, fib, 22), fj::test::fib_value(22));
  std::uint64_t attempts = 0;
  std::uint64_t steals = 0;
  std::uint64_t fences = 0;
  std::uint64_t contended = 0;
  for (const auto& s : pool.stats()) {
    attempts += s.steal_attempts;
    steals += s.steals;
    fences += s.heavy_fences;
    contended += s.steals_contended;
  }
  EXPECT_LE(steals + contended, attempts);
  if (fj::detail::asymmetric_fences_active()) {
    EXPECT_GE(fences, steals);
    EXPECT_LE(fences + contended, attempts);
  } else {
    EXPECT_EQ(fences, 0u);
    EXPECT_EQ(contended, 0u);
  }
}

// A pool says how its steals are fenced, and why not asymmetrically when they are not (membarrier refused,
// FJ_NO_ASYMMETRIC_FENCES=1, a TSan build).
TEST(Pool, DescriptionSaysHowStealsAreFenced) {
  fj::busy_pool pool(2);
  const std::string& d = pool.description();
  if (fj::detail::asymmetric_fences_active()) {
    EXPECT_NE(d.find("steal fences: asymmetric"), std::string::npos) << d;
  } else {
    EXPECT_NE(d.find("steal fences: symmetric ("), std::string::npos) << d;
  }
}

}  // namespace
