// Explicit scheduling: a task moves itself to a chosen worker or to another pool with fj::resume_on.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "support/fib.hpp"
#include "support/test_config.hpp"

namespace {

using fj::test::fib;

template <class Pool>
fj::task<int> hop_to_each_worker_and_back(Pool* pool) {
  std::size_t const home = fj::worker_index();
  int visits = 0;
  for (std::size_t k = 0; k < pool->size(); ++k) {
    co_await fj::resume_on(*pool, k);
    if (fj::worker_index() == k) ++visits;
    long r = 0;
    co_await fj::call(&r, fib, 12);  // do some forking work there
    if (r != 144) co_return -1;
  }
  co_await fj::resume_on(*pool, home);
  if (fj::worker_index() != home) co_return -2;
  co_return visits;
}

TEST(ResumeOn, TaskHopsToWorkerKAndBack) {
  fj::lazy_pool lazy(4);
  fj::busy_pool busy(3);
  for (int rep = 0; rep < 20; ++rep) {
    EXPECT_EQ(fj::sync_wait(lazy, hop_to_each_worker_and_back<fj::lazy_pool>, &lazy), 4);
    EXPECT_EQ(fj::sync_wait(busy, hop_to_each_worker_and_back<fj::busy_pool>, &busy), 3);
  }
}

fj::task<int> ping_pong(fj::lazy_pool* a, fj::busy_pool* b, int rounds) {
  int correct = 0;
  for (int i = 0; i < rounds; ++i) {
    co_await fj::resume_on(*a);
    if (fj::runs_on(*a)) ++correct;
    co_await fj::resume_on(*b);
    if (fj::runs_on(*b)) ++correct;
  }
  co_return correct;
}

TEST(ResumeOn, PingPongBetweenTwoPools) {
  fj::lazy_pool a(2);
  fj::busy_pool b(2);
  int const rounds = static_cast<int>(fj::test::scaled(2000, 200));
  EXPECT_EQ(fj::sync_wait(a, ping_pong, &a, &b, rounds), 2 * rounds);
}

// A forked child moves away while its parent's continuation still sits on the old worker's deque: the old
// worker must still run that continuation (it steals from its own deque), even in a single-worker pool.
fj::task<int> child_moves_away(fj::unit_pool* elsewhere) {
  co_await fj::resume_on(*elsewhere);
  co_return fj::runs_on(*elsewhere) ? 1 : 0;
}

fj::task<int> parent_of_mover(fj::unit_pool* elsewhere) {
  int a = 0;
  int b = 0;
  co_await fj::fork(&a, child_moves_away, elsewhere);
  co_await fj::fork(&b, child_moves_away, elsewhere);
  co_await fj::join;
  co_return a + b;
}

TEST(ResumeOn, ForkedChildMovingAwayLeavesItsParentRunnable) {
  fj::unit_pool home;
  fj::unit_pool elsewhere;
  for (int rep = 0; rep < 50; ++rep) EXPECT_EQ(fj::sync_wait(home, parent_of_mover, &elsewhere), 2);
}

// Regression: a worker left holding a parent's continuation on its deque (its forked child moved away) must
// run that continuation before it takes a task from its submission queue. Otherwise a moved-in forked child
// that finishes there pops the foreign continuation as if it were its own parent's, resumes its own parent a
// second time, and the foreign one is never resumed (found by reading the scheduler loop; before the fix
// this test hung). Unit pools do not steal from each other, so every step below happens on a known worker.
fj::task<int> move_to(fj::unit_pool* pool) {
  co_await fj::resume_on(*pool);
  co_return fj::runs_on(*pool) ? 1 : 0;
}

// Root on pool `home`: waits until another root's child is on its way here, then forks a child that leaves.
fj::task<int> leave_continuation_behind(fj::unit_pool* away, std::atomic<bool>* mover_sent) {
  while (!mover_sent->load(std::memory_order_acquire)) std::this_thread::yield();
  // Let the mover's resume_on land in this worker's submission queue while this worker is busy.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  int moved = 0;
  co_await fj::fork(&moved, move_to, away);
  co_await fj::join;
  co_return moved + 10;
}

// Root on another pool: forks a child that moves to `home`'s worker.
fj::task<int> send_mover(fj::unit_pool* home, std::atomic<bool>* mover_sent) {
  mover_sent->store(true, std::memory_order_release);
  int moved = 0;
  co_await fj::fork(&moved, move_to, home);
  co_await fj::join;
  co_return moved + 20;
}

TEST(ResumeOn, AMovedInChildNeverPopsAContinuationLeftBehindByAnother) {
  fj::unit_pool home;
  fj::unit_pool away;
  fj::unit_pool third;
  for (int rep = 0; rep < 5; ++rep) {
    std::atomic<bool> mover_sent{false};
    int sent = 0;
    std::thread other([&] { sent = fj::sync_wait(third, send_mover, &home, &mover_sent); });
    EXPECT_EQ(fj::sync_wait(home, leave_continuation_behind, &away, &mover_sent), 11);
    other.join();
    EXPECT_EQ(sent, 21);
  }
}

// Regression: when a task deep in a strand moves away, its old worker's deque holds the continuations of
// several ancestors. The worker must resume the newest (bottom) one first. It used to take the oldest (top),
// whose next fork then pushed below the others, and a forked child finishing there popped an ancestor's
// continuation as its own parent's (found by random trees with moves; before the fix this test hung).
fj::task<int> mover_leaf(fj::unit_pool* away) {
  co_await fj::resume_on(*away);
  co_return 1;
}

fj::task<int> forks_a_mover(fj::unit_pool* away) {
  int moved = 0;
  co_await fj::fork(&moved, mover_leaf, away);
  co_await fj::join;
  co_return moved + 10;
}

fj::task<int> forks_a_mover_two_down(fj::unit_pool* away) {
  int below = 0;
  co_await fj::fork(&below, forks_a_mover, away);
  co_await fj::join;
  co_return below + 100;
}

fj::task<int> strand_with_ancestors_left_behind(fj::unit_pool* away) {
  int deep = 0;
  co_await fj::fork(&deep, forks_a_mover_two_down, away);  // three continuations are left on this worker
  // Let the mover finish on `away` first, so that the forker above it finds its join complete.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  int moved = 0;
  co_await fj::fork(&moved, mover_leaf, away);
  co_await fj::join;
  co_return deep + moved + 1000;
}

TEST(ResumeOn, ContinuationsLeftBehindByADeepMoverResumeNewestFirst) {
  fj::unit_pool home;
  fj::unit_pool away;
  for (int rep = 0; rep < 5; ++rep) {
    EXPECT_EQ(fj::sync_wait(home, strand_with_ancestors_left_behind, &away), 1112);
  }
}

// A continuation left behind by one move must keep the stack that move gave it when a second move happens
// while it is still in the deque. Here the root forks A, A forks a mover: the root and A are left on home's
// worker, which writes their `home` (the stack leaving with the mover). The worker resumes A on a fresh
// stack; A forks a second mover, which finds the root still left behind. Rewriting the root's home with the
// worker's stack of now would make the root's join adopt the wrong stack (found by the random-tree stress
// test while building the first thief's write of `home`; stack.md "Where a frame lives").
fj::task<int> moves_away(fj::unit_pool* away) {
  co_await fj::resume_on(*away);
  co_return 1;
}

fj::task<int> forks_two_movers(fj::unit_pool* away) {
  int first = 0;
  int second = 0;
  co_await fj::fork(&first, moves_away, away);
  co_await fj::fork(&second, moves_away, away);
  co_await fj::join;
  co_return first + second + 10;
}

fj::task<int> root_left_behind_twice(fj::unit_pool* away) {
  int below = 0;
  co_await fj::fork(&below, forks_two_movers, away);
  co_await fj::join;
  co_return below + 100;
}

TEST(ResumeOn, AContinuationLeftBehindKeepsItsHomeWhenAnotherTaskMovesAway) {
  fj::unit_pool home;
  fj::unit_pool away;
  for (int rep = 0; rep < 20; ++rep) {
    EXPECT_EQ(fj::sync_wait(home, root_left_behind_twice, &away), 112);
  }
}

// The thread that moves a task onto another pool pushes it on a worker's inbox and then notifies that worker.
// In between, the task may run and finish its root, sync_wait may return and the pool may be destroyed; the
// notify then touched freed memory (found in review: AddressSanitizer reports it when a delay is injected
// after the push). The pool's destructor now waits for submitters still inside submit_to. The window is a few
// instructions wide, so this test (every pool destroyed right after one hop onto it, also in a chaos build
// that yields or spins after the push) exercises the path but does not reliably catch a regression.
fj::task<int> hop_onto(fj::busy_pool* pool) {
  co_await fj::resume_on(*pool);
  co_return fj::runs_on(*pool) ? 1 : 0;
}

TEST(ResumeOn, APoolDestroyedRightAfterATaskMovedOntoItFinishedIsNotTouchedAgain) {
  fj::busy_pool home(1);
  auto const pools = fj::test::scaled(1000, 200);
  for (std::uint64_t i = 0; i < pools; ++i) {
    auto away = std::make_unique<fj::busy_pool>(1);
    EXPECT_EQ(fj::sync_wait(home, hop_onto, away.get()), 1);
    away.reset();  // home's worker may still be inside submit_to on `away`
  }
}

fj::task<int> resume_on_bad_worker(fj::lazy_pool* pool) {
  try {
    co_await fj::resume_on(*pool, pool->size());
  } catch (const fj::invalid_config_error&) {
    co_return 1;
  }
  co_return 0;
}

TEST(ResumeOn, AnOutOfRangeWorkerIsAConfigurationError) {
  fj::lazy_pool pool(2);
  EXPECT_EQ(fj::sync_wait(pool, resume_on_bad_worker, &pool), 1);
}

TEST(ResumeOn, WorkerIndexOutsideAWorkerThrows) {
  EXPECT_THROW((void)fj::worker_index(), fj::not_in_worker_error);
}

// Moving onto a pool that has been shut down is refused at the co_await: the task stays where it was and gets
// fj::pool_closed_error (it used to be queued to a stopped worker and never resumed).
fj::task<int> move_to_closed(fj::lazy_pool* target) {
  try {
    co_await fj::resume_on(*target);
  } catch (const fj::pool_closed_error&) {
    co_return 1;
  }
  co_return 2;
}

TEST(ResumeOn, MovingOntoAShutDownPoolThrowsPoolClosedAndTheTaskStays) {
  fj::lazy_pool home(1);
  fj::lazy_pool closed(1);
  closed.shutdown();
  EXPECT_EQ(fj::sync_wait(home, move_to_closed, &closed), 1);
}

// Hops between two pools while a third thread shuts one of them down: every hop either lands or is refused
// with fj::pool_closed_error, shutdown() returns, and no root is lost. Before the fix a hop accepted just
// before the pool stopped was never resumed, and sync_wait hung.
fj::task<long> hop_until_refused(fj::lazy_pool* home, fj::lazy_pool* away, int hops) {
  long landed = 0;
  for (int i = 0; i < hops; ++i) {
    try {
      co_await fj::resume_on(*away);
      ++landed;
      long r = 0;
      co_await fj::call(&r, fj::test::fib, 10);
      if (r != fj::test::fib_value(10)) co_return -1;
    } catch (const fj::pool_closed_error&) {
      break;
    }
    co_await fj::resume_on(*home);
  }
  co_return landed;
}

TEST(ResumeOn, ShuttingAPoolDownWhileTasksHopOntoItLosesNothing) {
  for (int round = 0; round < 60; ++round) {
    fj::lazy_pool home(2);
    auto away = std::make_unique<fj::lazy_pool>(2);
    std::vector<std::thread> submitters;
    submitters.reserve(3);
    std::atomic<int> finished{0};
    for (int t = 0; t < 3; ++t) {
      submitters.emplace_back([&] {
        long const landed = fj::sync_wait(home, hop_until_refused, &home, away.get(), 200);
        EXPECT_GE(landed, 0);
        finished.fetch_add(1);
      });
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50 * (round % 10)));
    away->shutdown();
    for (auto& t : submitters) t.join();
    EXPECT_EQ(finished.load(), 3);
    away.reset();
  }
}

}  // namespace
