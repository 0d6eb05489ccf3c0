// Where submitted work goes and who wakes for it: roots (and tasks moving with resume_on(pool)) are taken by
// whichever worker is free, not by one chosen in advance that may be blocked; and while work runs, every NUMA
// group of a lazy pool has an awake thief (sleep.md "The lazy pool's rule"). Both were found in review.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <chrono>
#include <string>
#include <thread>

#include "support/test_config.hpp"
#include "support/watchdog.hpp"

namespace {

fj::task<int> tiny(int x) { co_return x + 1; }

// On pool B: two roots back on pool A, whose worker that runs `outer_on` is blocked meanwhile.
template <class Pool>
fj::task<int> back_on(Pool* a) {
  int sum = 0;
  for (int i = 0; i < 4; ++i) sum += fj::sync_wait(*a, tiny, i);
  co_return sum;
}

// On pool A: blocks its worker in a sync_wait on B (allowed, B is another pool).
template <class Pool>
fj::task<int> outer_on(Pool* b, Pool* a) {
  co_return fj::sync_wait(*b, back_on<Pool>, a);
}

// Each root used to go round robin to a worker's own queue, so one of the roots on A landed on the blocked
// worker and waited there for ever, with A's other worker idle (the review's reproducer deadlocked in its
// first round).
template <class Pool>
void nested_roots_find_the_free_worker() {
  Pool a(2);
  Pool b(1);
  fj::test::watchdog dog;  // a deadlock aborts with the pools' state instead of hanging the suite
  auto const watch = dog.watch("roots on a pool with a blocked worker", [&] {
    return "A: " + fj::test::describe_pool(a) + "B: " + fj::test::describe_pool(b);
  });
  for (int round = 0; round < 50; ++round) {
    if (round % 2 == 1) {
      EXPECT_EQ(fj::sync_wait(a, tiny, round), round + 1);  // shifts any round robin
    }
    EXPECT_EQ(fj::sync_wait(a, outer_on<Pool>, &b, &a), 1 + 2 + 3 + 4) << "round " << round;
  }
}

TEST(PoolSubmission, RootsOnALazyPoolWithABlockedWorkerRunOnTheFreeOne) {
  nested_roots_find_the_free_worker<fj::lazy_pool>();
}

TEST(PoolSubmission, RootsOnABusyPoolWithABlockedWorkerRunOnTheFreeOne) {
  nested_roots_find_the_free_worker<fj::busy_pool>();
}

// resume_on(pool) without a worker index goes to whichever worker is free, too.
fj::task<int> move_to_any(fj::lazy_pool* a) {
  co_await fj::resume_on(*a);
  co_return fj::runs_on(*a) ? 1 : 0;
}

// On pool B: a root on A (which takes the round robin's next worker, so that the move would take the one
// after it: with two workers, the blocked one), then a move onto A.
fj::task<int> mover_on_b(fj::lazy_pool* a) {
  int const one = fj::sync_wait(*a, tiny, 0);
  int moved = 0;
  co_await fj::call(&moved, move_to_any, a);
  co_return moved* one;
}

// On pool A: blocks its worker until a task of B has moved onto A and back.
fj::task<int> blocked_while_a_task_moves_here(fj::lazy_pool* b, fj::lazy_pool* a) {
  co_return fj::sync_wait(*b, mover_on_b, a);
}

TEST(PoolSubmission, ATaskMovingToAnyWorkerOfAPoolWithABlockedWorkerRunsOnTheFreeOne) {
  fj::lazy_pool a(2);
  fj::lazy_pool b(1);
  fj::test::watchdog dog;
  auto const watch = dog.watch("moves onto a pool with a blocked worker", [&] {
    return "A: " + fj::test::describe_pool(a) + "B: " + fj::test::describe_pool(b);
  });
  for (int round = 0; round < 50; ++round) {
    if (round % 2 == 1) {
      EXPECT_EQ(fj::sync_wait(a, tiny, round), round + 1);  // shifts any round robin
    }
    EXPECT_EQ(fj::sync_wait(a, blocked_while_a_task_moves_here, &b, &a), 1) << "round " << round;
  }
}

TEST(PoolSubmission, ResumeOnAnyWorkerOfThePoolItRunsOnStaysPut) {
  fj::lazy_pool a(2);
  EXPECT_EQ(fj::sync_wait(a, move_to_any, &a), 1);
  std::uint64_t runs = 0;
  for (const auto& w : a.stats()) runs += w.submissions_run;
  EXPECT_EQ(runs, 1u) << "the root only: the task did not move";
}

#if defined(FJ_HAVE_HWLOC) && FJ_HAVE_HWLOC
// Spins on its worker until the test has seen `awake` workers of the pool awake, or for 10 s.
fj::task<bool> keep_busy_until_awake(fj::lazy_pool* pool, std::size_t awake) {
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (pool->size() - pool->sleeping() >= awake) co_return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  co_return false;
}

// A lazy pool on a machine with two NUMA nodes of two cores (hwloc's synthetic topology). With every worker
// asleep, a root arrives at a worker of one group: that group's last thief woke a sleeper of its own group,
// and nobody woke the other group, which slept through the whole root (the paper and sleep.md promise one
// awake thief per group while work is active).
TEST(PoolSubmission, WorkOnOneNumaGroupWakesAThiefInTheOther) {
  ::setenv("HWLOC_SYNTHETIC", "node:2 core:2 pu:1", 1);
  fj::lazy_pool pool(4);
  ::unsetenv("HWLOC_SYNTHETIC");
  if (pool.description().find("2 NUMA") == std::string::npos) {
    GTEST_SKIP() << "hwloc did not take the synthetic topology: " << pool.description();
  }
  for (int round = 0; round < 5; ++round) {
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (pool.sleeping() != pool.size() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(pool.sleeping(), pool.size()) << "round " << round << ": the idle pool did not fall asleep";
    // The active worker, a thief of its group and a thief of the other group.
    EXPECT_TRUE(fj::sync_wait(pool, keep_busy_until_awake, &pool, std::size_t{3}))
        << "round " << round << ": a NUMA group stayed asleep while work ran; " << pool.description();
  }
}
#endif

}  // namespace
