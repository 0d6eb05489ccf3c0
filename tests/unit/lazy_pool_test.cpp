// fj::lazy_pool: correct results, sleeping when idle, lingering before it, waking for work, and shutdown
// under load.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "support/fib.hpp"
#include "support/test_config.hpp"

namespace {

using fj::test::fib;

fj::task<int> tiny(int x) { co_return x + 1; }

// Fails the test (instead of hanging the suite) if `body` does not finish in time: a lost wake-up shows as a
// hang.
template <class F>
void within(std::chrono::seconds limit, F body) {
  auto done = std::async(std::launch::async, body);
  ASSERT_EQ(done.wait_for(limit), std::future_status::ready) << "hang: a wake-up was probably lost";
  done.get();
}

// A pool whose workers sleep as soon as their spin ends: the tests of the wake-up path need workers asleep
// between their cycles, which a linger would keep awake.
fj::pool_options no_linger(std::size_t workers) { return {.workers = workers, .linger = {}}; }

bool wait_until_all_asleep(fj::lazy_pool& pool) {
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (pool.sleeping() != pool.size()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

TEST(LazyPool, ComputesFibonacciAtEveryWorkerCount) {
  for (std::size_t workers : {1u, 2u, 4u, 16u}) {
    fj::lazy_pool pool(workers);
    EXPECT_EQ(fj::sync_wait(pool, fib, 22), 17711) << workers << " workers";
  }
}

TEST(LazyPool, IdleWorkersFallAsleep) {
  fj::lazy_pool pool(4);
  (void)fj::sync_wait(pool, fib, 15);
  EXPECT_TRUE(wait_until_all_asleep(pool));
  std::uint64_t sleeps = 0;
  for (const auto& s : pool.stats()) sleeps += s.sleeps;
  EXPECT_GT(sleeps, 0u);
}

TEST(LazyPool, NegativeLingerIsRefused) {
  EXPECT_THROW(fj::lazy_pool pool(fj::pool_options{.workers = 2, .linger = std::chrono::microseconds(-1)}),
               fj::invalid_config_error);
  EXPECT_THROW(fj::busy_pool pool(fj::pool_options{.workers = 2, .linger = std::chrono::microseconds(-1)}),
               fj::invalid_config_error);
}

// Workers linger after their work instead of sleeping: with a linger of an hour nobody sleeps, and the pool
// still stops at once when it is destroyed (a lingering worker checks for the stop on every round).
TEST(LazyPool, LingeringWorkersStayAwakeAfterWork) {
  within(std::chrono::seconds(60), [] {
    fj::lazy_pool pool(fj::pool_options{.workers = 3, .linger = std::chrono::hours(1)});
    EXPECT_EQ(fj::sync_wait(pool, fib, 18), 2584);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(pool.sleeping(), 0u);
    std::uint64_t sleeps = 0;
    for (const auto& s : pool.stats()) sleeps += s.sleeps;
    EXPECT_EQ(sleeps, 0u);
  });
}

// A finite linger ends: the workers then sleep as without one.
TEST(LazyPool, LingeringWorkersFallAsleepWhenTheLingerEnds) {
  fj::lazy_pool pool(fj::pool_options{.workers = 3, .linger = std::chrono::milliseconds(20)});
  EXPECT_EQ(fj::sync_wait(pool, fib, 18), 2584);
  EXPECT_TRUE(wait_until_all_asleep(pool));
}

// What a parallel algorithm asks on entry (pool_core::has_idle_worker), and how a thread calling again and
// again gets a worker woken for its next call (pool_core::wake_for_next_call): not on its first such call,
// on the second within the linger, and never on a pool without a linger.
TEST(LazyPool, ASecondCallSoonAfterTheFirstWakesAWorkerForTheNext) {
  fj::lazy_pool awake(fj::pool_options{.workers = 2, .linger = std::chrono::hours(1)});
  EXPECT_TRUE(awake.core().has_idle_worker());

  auto stays_asleep = [](fj::lazy_pool& pool) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return pool.sleeping() == pool.size();
  };
  fj::lazy_pool pool(fj::pool_options{.workers = 2, .linger = std::chrono::milliseconds(500)});
  ASSERT_TRUE(wait_until_all_asleep(pool));
  EXPECT_FALSE(pool.core().has_idle_worker());
  pool.core().wake_for_next_call();
  EXPECT_TRUE(stays_asleep(pool)) << "the first call woke a worker";
  pool.core().wake_for_next_call();
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!pool.core().has_idle_worker() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_TRUE(pool.core().has_idle_worker()) << "the second call within the linger woke nobody";

  fj::lazy_pool no_wait(no_linger(2));
  ASSERT_TRUE(wait_until_all_asleep(no_wait));
  no_wait.core().wake_for_next_call();
  no_wait.core().wake_for_next_call();
  EXPECT_TRUE(stays_asleep(no_wait)) << "a pool without a linger woke a worker ahead of work";
}

// The worker that takes a root wakes a second one to keep a thief awake (sleep.md, step 2). That one does not
// linger after the root (sleep.md "Lingering"): it sleeps again as soon as no work is active, while the
// worker that ran the root lingers.
TEST(LazyPool, AWorkerWokenOnlyAsTheAwakeThiefDoesNotLinger) {
  fj::lazy_pool pool(fj::pool_options{.workers = 2, .linger = std::chrono::seconds(2)});
  ASSERT_TRUE(wait_until_all_asleep(pool));
  EXPECT_EQ(fj::sync_wait(pool, tiny, 1), 2);
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  while (pool.sleeping() != 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  EXPECT_EQ(pool.sleeping(), 1u) << "the thief lingered, or the worker that ran the root did not";
}

class LazyPoolWakeups : public ::testing::TestWithParam<std::size_t> {};

// "All asleep -> submit one tiny task -> wait for it", many times. Every few cycles the test waits until
// every worker really sleeps, so that the wake-up path is exercised from the deepest idle state.
TEST_P(LazyPoolWakeups, NoWakeUpIsLostOverManyCycles) {
  fj::lazy_pool pool(no_linger(GetParam()));
  auto const cycles = static_cast<int>(fj::test::scaled(100'000, 5'000));
  within(std::chrono::seconds(240), [&] {
    for (int i = 0; i < cycles; ++i) {
      if (i % 1000 == 0) {
        ASSERT_TRUE(wait_until_all_asleep(pool));
      }
      ASSERT_EQ(fj::sync_wait(pool, tiny, i), i + 1);
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Workers, LazyPoolWakeups, ::testing::Values(2, 4, 16));

TEST(LazyPool, ShutdownWhileOutsideThreadsSubmitGivesEverySubmissionAResultOrPoolClosed) {
  fj::lazy_pool pool(2);
  std::atomic<long> completed{0};
  std::atomic<long> refused{0};
  std::atomic<long> wrong{0};
  std::vector<std::thread> submitters;
  submitters.reserve(4);
  for (int t = 0; t < 4; ++t) {
    submitters.emplace_back([&, t] {
      for (int i = 0;; ++i) {
        try {
          if (fj::sync_wait(pool, tiny, t * 1000000 + i) != t * 1000000 + i + 1) wrong.fetch_add(1);
          completed.fetch_add(1);
        } catch (const fj::pool_closed_error&) {
          refused.fetch_add(1);
          return;
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  pool.shutdown();
  for (auto& s : submitters) s.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(refused.load(), 4);
  EXPECT_GT(completed.load(), 0);
  EXPECT_THROW((void)fj::sync_wait(pool, tiny, 1), fj::pool_closed_error);
}

TEST(LazyPool, FourOutsideThreadsSubmittingManyRootsAllGetTheirResults) {
  fj::lazy_pool pool(2);
  auto const per_thread = static_cast<int>(fj::test::scaled(25'000, 1'000));
  std::atomic<long> wrong{0};
  within(std::chrono::seconds(240), [&] {
    std::vector<std::thread> submitters;
    submitters.reserve(4);
    for (int t = 0; t < 4; ++t) {
      submitters.emplace_back([&, t] {
        for (int i = 0; i < per_thread; ++i) {
          if (fj::sync_wait(pool, tiny, t + 4 * i) != t + 4 * i + 1) wrong.fetch_add(1);
        }
      });
    }
    for (auto& s : submitters) s.join();
  });
  EXPECT_EQ(wrong.load(), 0);
}

TEST(LazyPool, DescriptionNamesThePoolAndItsTopology) {
  fj::lazy_pool pool(2);
  EXPECT_NE(pool.description().find("lazy_pool"), std::string::npos);
  EXPECT_NE(pool.description().find("topology"), std::string::npos);
}

}  // namespace
