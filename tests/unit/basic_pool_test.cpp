// fj::basic_pool (include/forkjoin/basic_pool.hpp): every idle part with every victim part, the example
// victim part (ext/nearest_first_victims.hpp) and user parts, at 1, 2 and 4 workers, running fork-join tasks
// and fj::scope spawns with steals; a user part's errors (a throwing constructor, an index past the
// workers); the pool without stealing; and the priority part (ext/priority_part.hpp): order, waits,
// exceptions, shutdown and destruction with tasks queued.

#include <gtest/gtest.h>
#include <forkjoin/basic_pool.hpp>
#include <forkjoin/ext/nearest_first_victims.hpp>
#include <forkjoin/ext/priority_part.hpp>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "support/fib.hpp"
#include "support/spawn_fib.hpp"

namespace {

using fj::test::fib;
using fj::test::fib_value;
using fj::test::spawn_fib;

// The named pools are configurations of basic_pool and cost nothing more than its core.
static_assert(std::is_base_of_v<fj::basic_pool<fj::spin_idle>, fj::busy_pool>);
static_assert(std::is_base_of_v<fj::basic_pool<fj::sleep_idle>, fj::lazy_pool>);
static_assert(std::is_base_of_v<fj::basic_pool<fj::sleep_idle, fj::no_victims>, fj::unit_pool>);
static_assert(sizeof(fj::busy_pool) == sizeof(fj::detail::pool_base));
static_assert(sizeof(fj::lazy_pool) == sizeof(fj::detail::pool_base));
static_assert(sizeof(fj::unit_pool) == sizeof(fj::detail::pool_base));
static_assert(sizeof(fj::basic_pool<fj::sleep_idle, fj::nearest_first_victims>) ==
              sizeof(fj::detail::pool_base));

std::uint64_t total_steals(const fj::detail::pool_base& pool) {
  std::uint64_t n = 0;
  for (const fj::worker_stats& s : pool.stats()) n += s.steals;
  return n;
}

template <class Pool>
class BasicPoolConfiguration : public ::testing::Test {};

using configurations =
    ::testing::Types<fj::basic_pool<fj::spin_idle>, fj::basic_pool<fj::spin_idle, fj::uniform_victims>,
                     fj::basic_pool<fj::spin_idle, fj::numa_victims>,
                     fj::basic_pool<fj::spin_idle, fj::nearest_first_victims>, fj::basic_pool<fj::sleep_idle>,
                     fj::basic_pool<fj::sleep_idle, fj::uniform_victims>,
                     fj::basic_pool<fj::sleep_idle, fj::numa_victims>,
                     fj::basic_pool<fj::sleep_idle, fj::nearest_first_victims>, fj::busy_pool, fj::lazy_pool>;
TYPED_TEST_SUITE(BasicPoolConfiguration, configurations);

// Tasks and spawns give the serial answers, and with two workers or more some work is stolen: the victim part
// names workers that have work. A sleeping thief may wake only after a short run has finished, and under
// ctest -j the thief may get no core for a while, so the steal check runs longer ones until a steal happened
// (for up to a minute: a pool whose thieves never steal fails, a slow machine does not).
TYPED_TEST(BasicPoolConfiguration, RunsTasksAndSpawnsAndSteals) {
  for (std::size_t const workers : {1U, 2U, 4U}) {
    TypeParam pool(workers);
    ASSERT_EQ(pool.size(), workers);
    for (int round = 0; round < 3; ++round) {
      ASSERT_EQ(fj::sync_wait(pool, fib, 18), fib_value(18)) << pool.description();
      ASSERT_EQ(fj::sync_wait(pool, spawn_fib, 16), fib_value(16)) << pool.description();
    }
    if (workers == 1) {
      EXPECT_EQ(total_steals(pool), 0U) << pool.description();
      continue;
    }
    std::uint64_t steals = total_steals(pool);
    auto const give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (steals == 0 && std::chrono::steady_clock::now() < give_up) {
      ASSERT_EQ(fj::sync_wait(pool, fib, 24), fib_value(24)) << pool.description();
      ASSERT_EQ(fj::sync_wait(pool, spawn_fib, 22), fib_value(22)) << pool.description();
      steals = total_steals(pool);
    }
    EXPECT_GT(steals, 0U) << pool.description();
  }
}

TYPED_TEST(BasicPoolConfiguration, TakesPoolOptions) {
  TypeParam pool(fj::pool_options{.workers = 2, .pinning = fj::pin_policy::cores});
  EXPECT_EQ(fj::sync_wait(pool, fib, 18), fib_value(18));
  EXPECT_THROW(TypeParam empty(std::size_t{0}), fj::invalid_config_error);
}

TEST(BasicPool, DescriptionNamesTheConfigurationAndItsVictims) {
  fj::basic_pool<fj::sleep_idle, fj::nearest_first_victims> ring(2);
  EXPECT_EQ(ring.description().rfind("basic_pool: 2 worker(s)", 0), 0U) << ring.description();
  EXPECT_NE(ring.description().find("victims by nearest_first_victims"), std::string::npos)
      << ring.description();
  fj::busy_pool busy(2);
  EXPECT_EQ(busy.description().rfind("busy_pool: 2 worker(s)", 0), 0U) << busy.description();
  fj::basic_pool<fj::spin_idle, fj::no_victims> serial(2);
  EXPECT_NE(serial.description().find("no stealing"), std::string::npos) << serial.description();
}

// ---- the example part, on its own ----

std::vector<std::size_t> draws(fj::nearest_first_victims& part, std::size_t n) {
  std::vector<std::size_t> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(part());
  return out;
}

TEST(NearestFirstVictims, GoesRoundFromItsOwnIndexOnAFlatMachine) {
  fj::nearest_first_victims part(4, 2, fj::topology::uniform(4));
  EXPECT_EQ(draws(part, 7), (std::vector<std::size_t>{3, 0, 1, 3, 0, 1, 3}));
}

TEST(NearestFirstVictims, TriesItsOwnNumaNodeFirst) {
  // Two NUMA nodes of two cores: 0 and 1 share one, 2 and 3 the other.
  fj::topology const machine = fj::topology::synthetic({2, 2});
  fj::nearest_first_victims zero(4, 0, machine);
  EXPECT_EQ(draws(zero, 4), (std::vector<std::size_t>{1, 2, 3, 1}));
  fj::nearest_first_victims three(4, 3, machine);
  EXPECT_EQ(draws(three, 4), (std::vector<std::size_t>{2, 0, 1, 2}));
}

// ---- user parts ----

std::mutex made_mutex;
std::vector<std::size_t> made_for;  // `self` of each recording_victims made, in order

struct recording_victims {
  static constexpr const char* name = "recording_victims";
  recording_victims(std::size_t workers, std::size_t self, const fj::topology& placement)
      : workers_(workers), self_(self) {
    EXPECT_EQ(placement.size(), workers);
    const std::lock_guard lock(made_mutex);
    made_for.push_back(self);
  }
  std::size_t operator()() noexcept { return (self_ + 1) % workers_; }

 private:
  std::size_t workers_;
  std::size_t self_;
};
static_assert(fj::victim_part<recording_victims>);

TEST(BasicPoolUserPart, OnePartPerWorkerMadeBeforeTheWorkersRun) {
  made_for.clear();
  {
    fj::basic_pool<fj::spin_idle, recording_victims> pool(3);
    EXPECT_EQ(fj::sync_wait(pool, fib, 20), fib_value(20));
  }
  EXPECT_EQ(made_for, (std::vector<std::size_t>{0, 1, 2}));
}

// Returning its own index skips the attempt: a part that always does so never steals, and nothing hangs.
struct never_steal {
  never_steal(std::size_t /*workers*/, std::size_t self, const fj::topology& /*placement*/) : self_(self) {}
  std::size_t operator()() const noexcept { return self_; }

 private:
  std::size_t self_;
};

TEST(BasicPoolUserPart, ReturningItsOwnIndexSkipsTheAttempt) {
  fj::basic_pool<fj::sleep_idle, never_steal> lazy(2);
  fj::basic_pool<fj::spin_idle, never_steal> busy(2);
  for (int round = 0; round < 5; ++round) {
    EXPECT_EQ(fj::sync_wait(lazy, fib, 18), fib_value(18));
    EXPECT_EQ(fj::sync_wait(busy, spawn_fib, 16), fib_value(16));
  }
  EXPECT_EQ(total_steals(lazy), 0U);
  EXPECT_EQ(total_steals(busy), 0U);
}

struct refuses_worker_one {
  refuses_worker_one(std::size_t /*workers*/, std::size_t self, const fj::topology& /*placement*/) {
    if (self == 1) throw std::runtime_error("no part for worker 1");
  }
  std::size_t operator()() const noexcept { return 0; }
};

TEST(BasicPoolUserPart, AConstructorsExceptionLeavesThePoolsConstructor) {
  EXPECT_THROW((fj::basic_pool<fj::sleep_idle, refuses_worker_one>(3)), std::runtime_error);
}

struct past_the_end {
  static constexpr const char* name = "past_the_end";
  past_the_end(std::size_t workers, std::size_t /*self*/, const fj::topology& /*placement*/)
      : workers_(workers) {}
  std::size_t operator()() const noexcept { return workers_; }

 private:
  std::size_t workers_;
};

using past_the_end_pool = fj::basic_pool<fj::spin_idle, past_the_end>;

TEST(BasicPoolUserPartDeathTest, AnIndexPastTheWorkersStopsTheProcessWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        past_the_end_pool pool(2);
        (void)fj::sync_wait(pool, fib, 20);
      },
      "fj: the victim part past_the_end returned worker 2 to worker [01] of a pool of 2 workers");
}

// ---- no stealing ----

TEST(BasicPoolNoVictims, EachRootRunsOnTheWorkerThatTookIt) {
  fj::basic_pool<fj::sleep_idle, fj::no_victims> pool(2);
  std::vector<std::thread> callers;
  callers.reserve(2);
  std::atomic<int> wrong{0};
  for (int t = 0; t < 2; ++t) {
    callers.emplace_back([&] {
      for (int round = 0; round < 10; ++round) {
        if (fj::sync_wait(pool, fib, 18) != fib_value(18)) wrong.fetch_add(1);
        if (fj::sync_wait(pool, spawn_fib, 16) != fib_value(16)) wrong.fetch_add(1);
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(total_steals(pool), 0U);
}

// ---- the priority part ----

using strict_pool = fj::basic_pool<fj::sleep_idle, fj::default_victims, fj::with_strict_priority>;
template <class Idle>
using relaxed_pool = fj::basic_pool<Idle, fj::default_victims, fj::with_relaxed_priority<4>>;

// On one worker, tasks spawned by a running task wait until it returns and then run most urgent first.
TEST(BasicPoolPriority, OneWorkerRunsTheMostUrgentFirst) {
  strict_pool pool(1);
  std::vector<int> order;
  pool.spawn(0.0, [&pool, &order] {
    for (int i = 0; i < 10; ++i) {
      pool.spawn(static_cast<double>(10 - i), [&order, i] { order.push_back(i); });
    }
  });
  pool.wait_for_priority_tasks();
  EXPECT_EQ(order, (std::vector<int>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(pool.priority_tasks().pending(), 0U);
}

// Tasks spawned from outside and from tasks, running fj::scope and coroutine work inside, all finish.
template <class Pool>
void runs_every_task(std::size_t workers) {
  Pool pool(workers);
  std::atomic<long> sum{0};
  for (int i = 0; i < 200; ++i) {
    pool.spawn(static_cast<double>(i % 17), [&pool, &sum, i] {
      sum.fetch_add(spawn_fib(10));
      if (i % 4 == 0) {
        pool.spawn(-1.0, [&sum] { sum.fetch_add(1); });
      }
    });
  }
  pool.wait_for_priority_tasks();
  EXPECT_EQ(sum.load(), 200 * fib_value(10) + 50) << pool.description();
}

TEST(BasicPoolPriority, EveryTaskRunsOnEveryIdlePartAndWorkerCount) {
  for (std::size_t const workers : {1U, 2U, 4U}) {
    runs_every_task<relaxed_pool<fj::sleep_idle>>(workers);
    runs_every_task<relaxed_pool<fj::spin_idle>>(workers);
    runs_every_task<strict_pool>(workers);
  }
}

TEST(BasicPoolPriority, AnExceptionReachesTheWaitAndNoTaskIsSkipped) {
  relaxed_pool<fj::sleep_idle> pool(2);
  std::atomic<int> ran{0};
  for (int i = 0; i < 50; ++i) {
    pool.spawn(static_cast<double>(i), [&ran, i] {
      ran.fetch_add(1);
      if (i % 10 == 3) throw std::runtime_error("task " + std::to_string(i));
    });
  }
  EXPECT_THROW(pool.wait_for_priority_tasks(), std::runtime_error);
  EXPECT_EQ(ran.load(), 50);
  // The group is reusable after the wait.
  pool.spawn(0.0, [&ran] { ran.fetch_add(1); });
  pool.wait_for_priority_tasks();
  EXPECT_EQ(ran.load(), 51);
}

TEST(BasicPoolPriority, ANaNPriorityIsRefused) {
  strict_pool pool(1);
  EXPECT_THROW(pool.spawn(std::numeric_limits<double>::quiet_NaN(), [] {}), fj::priority_error);
  pool.wait_for_priority_tasks();
}

// The group dies before the pool's workers stop: queued tasks run, also without a wait or after shutdown().
TEST(BasicPoolPriority, DestructionAndShutdownRunTheQueuedTasks) {
  std::atomic<int> ran{0};
  {
    relaxed_pool<fj::spin_idle> pool(2);
    for (int i = 0; i < 100; ++i) pool.spawn(static_cast<double>(i), [&ran] { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 100);
  relaxed_pool<fj::sleep_idle> pool(2);
  for (int i = 0; i < 100; ++i) pool.spawn(static_cast<double>(i), [&ran] { ran.fetch_add(1); });
  pool.shutdown();
  EXPECT_EQ(ran.load(), 200);
  // After shutdown the pool refuses spawns with a named error instead of queueing a task nobody runs.
  EXPECT_THROW(pool.spawn(0.0, [&ran] { ran.fetch_add(1); }), fj::pool_closed_error);
  EXPECT_EQ(ran.load(), 200);
}

// Code that holds pools by their common base still shuts one down only after its priority tasks.
TEST(BasicPoolPriority, ShutdownThroughTheBaseWaitsForThePriorityTasks) {
  std::atomic<int> ran{0};
  relaxed_pool<fj::sleep_idle> pool(2);
  for (int i = 0; i < 100; ++i) {
    pool.spawn(static_cast<double>(i), [&ran] {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      ran.fetch_add(1);
    });
  }
  fj::detail::pool_base& base = pool;
  base.shutdown();
  EXPECT_EQ(ran.load(), 100);
  EXPECT_THROW(pool.spawn(0.0, [] {}), fj::pool_closed_error);
}

// Tasks on the pool may use the priority part too: a coroutine spawns, then waits on its worker.
fj::task<long> spawn_and_wait(strict_pool* pool) {
  std::atomic<long> sum{0};
  for (int i = 0; i < 20; ++i) pool->spawn(static_cast<double>(i), [&sum, i] { sum.fetch_add(i); });
  pool->wait_for_priority_tasks();
  long a = 0;
  co_await fj::call(&a, fib, 15);
  co_return sum.load() + a;
}

TEST(BasicPoolPriority, ACoroutineOnThePoolSpawnsAndWaits) {
  strict_pool pool(2);
  EXPECT_EQ(fj::sync_wait(pool, spawn_and_wait, &pool), 190 + fib_value(15));
}

}  // namespace
