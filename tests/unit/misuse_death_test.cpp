// Misuse gets a named error: every misuse the runtime detects, run in a child process (GoogleTest death
// tests, "threadsafe" style: the child re-executes this program, since pools have threads), checking the text
// the process prints as it dies. The expected texts are written out here, not taken from the library, so a
// changed message fails these tests; docs/misuse.md lists the same cases.
//
// Typed errors (fj::not_in_worker_error, fj::deadlock_error, fj::pool_closed_error, ...) are checked by
// letting them escape uncaught: the C++ runtime's terminate handler (libstdc++'s, with both compilers here)
// then names the exception's type and prints its what(). Misuse that cannot be reported by an exception (in
// a destructor, or a broken runtime invariant) stops the process with a message from forkjoin itself.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "support/fib.hpp"

namespace {

using fj::test::fib;

// `text` as a POSIX extended regular expression that matches exactly it.
std::string literal(std::string_view text) {
  std::string out;
  for (char const c : text) {
    if (std::string_view(".[]{}()\\*+?^$|").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// What the terminate handler prints for an uncaught exception of `type` whose what() is `message`.
std::string uncaught(std::string_view type, std::string_view message) {
  return "terminate called after throwing an instance of '" + literal(type) + "'.*what\\(\\): +" +
         literal(message);
}

// Runs `statement` on a thread of its own with no handler anywhere above it, so that an exception it throws
// is not caught by anyone (GoogleTest would catch it on the test's thread). With no handler, the runtime
// calls std::terminate before unwinding, while the exception is still current, and the terminate handler
// names it. (Leaving a noexcept function instead is not enough: with g++-12 the handler then printed
// "terminate called without an active exception" whenever the statement had locals to destroy.)
template <class F>
void uncaught_from(F statement) {
  std::thread(statement).join();
}

class MisuseDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

// ---- tasks outside a pool ----

constexpr std::string_view k_not_in_worker =
    "fj: a task was created outside a forkjoin worker; start it with fj::sync_wait(pool, fn, args...)";

TEST_F(MisuseDeathTest, CallingATaskFunctionOutsideAWorkerNamesNotInWorkerError) {
  EXPECT_DEATH(uncaught_from([] { (void)fib(3); }), uncaught("fj::not_in_worker_error", k_not_in_worker));
}

TEST_F(MisuseDeathTest, ForkingOutsideAWorkerNamesNotInWorkerError) {
  EXPECT_DEATH(uncaught_from([] { (void)fj::fork(fib, 3); }),
               uncaught("fj::not_in_worker_error", k_not_in_worker));
}

TEST_F(MisuseDeathTest, AScratchArrayOutsideAWorkerNamesNotInWorkerError) {
  EXPECT_DEATH(uncaught_from([] { fj::scratch<int> a(4); }),
               uncaught("fj::not_in_worker_error", k_not_in_worker));
}

TEST_F(MisuseDeathTest, AskingForTheWorkerIndexOutsideAWorkerNamesNotInWorkerError) {
  EXPECT_DEATH(uncaught_from([] { (void)fj::worker_index(); }),
               uncaught("fj::not_in_worker_error", k_not_in_worker));
}

// ---- waiting on a pool from its own worker ----

fj::task<long> sync_wait_on_own_pool(fj::busy_pool* pool) { co_return fj::sync_wait(*pool, fib, 3); }

TEST_F(MisuseDeathTest, SyncWaitFromAWorkerOfTheSamePoolNamesDeadlockError) {
  EXPECT_DEATH(
      uncaught_from([] {
        fj::busy_pool pool(2);
        (void)fj::sync_wait(pool, sync_wait_on_own_pool, &pool);
      }),
      uncaught("fj::deadlock_error",
               "fj: sync_wait of a task called from a worker of the same pool (this would deadlock); inside "
               "a task use co_await fj::call(...), and in a plain function spawn plain functions with "
               "fj::scope"));
}

// ---- a closed pool ----

constexpr std::string_view k_pool_closed = "fj: work submitted to a pool that is shutting down";

TEST_F(MisuseDeathTest, SubmittingToAShutDownPoolNamesPoolClosedError) {
  EXPECT_DEATH(uncaught_from([] {
                 fj::lazy_pool pool(2);
                 pool.shutdown();
                 (void)fj::sync_wait(pool, fib, 3);
               }),
               uncaught("fj::pool_closed_error", k_pool_closed));
}

// A pool's destructor shuts it down before anything is freed: a submission from another thread while the
// destructor waits for work in flight is refused the same way.
fj::task<int> hold_until(std::atomic<bool>* started, std::atomic<bool>* release) {
  started->store(true, std::memory_order_release);
  while (!release->load(std::memory_order_acquire)) std::this_thread::yield();
  co_return 1;
}

TEST_F(MisuseDeathTest, SubmittingToAPoolWhoseDestructorRunsNamesPoolClosedError) {
  EXPECT_DEATH(uncaught_from([] {
                 std::atomic<bool> started{false};
                 std::atomic<bool> release{false};
                 std::optional<fj::busy_pool> pool(std::in_place, 2);
                 std::thread holder([&] { (void)fj::sync_wait(*pool, hold_until, &started, &release); });
                 while (!started.load(std::memory_order_acquire)) std::this_thread::yield();
                 // The destructor closes the pool, then waits for hold_until, which waits for the `late`
                 // thread: its submission, made while the destructor waits, is refused, and the refusal
                 // terminates the process while the pool object still exists. Should the submission come
                 // before the destructor has begun (this thread descheduled for 200 ms), its root goes to the
                 // idle second worker (roots are dealt round robin), completes and releases hold_until, and
                 // the statement ends without dying: a failure, not a hang.
                 std::thread late([&] {
                   std::this_thread::sleep_for(std::chrono::milliseconds(200));
                   (void)fj::sync_wait(*pool, fib, 3);
                   release.store(true, std::memory_order_release);
                 });
                 pool.reset();
                 late.join();
                 holder.join();
               }),
               uncaught("fj::pool_closed_error", k_pool_closed));
}

// ---- shutting a pool down from inside it ----

constexpr std::string_view k_shut_down_by_own_worker =
    "fj: a pool was shut down or destroyed from one of its own workers, which would wait for itself; shut it "
    "down from a thread outside the pool";

fj::task<void> shut_down(fj::busy_pool* pool) {
  pool->shutdown();
  co_return;
}

// shutdown() can throw, so this one is an exception at sync_wait, not a death; the pool stays usable.
TEST_F(MisuseDeathTest, ShuttingAPoolDownFromItsOwnWorkerThrowsDeadlockError) {
  fj::busy_pool pool(2);
  try {
    fj::sync_wait(pool, shut_down, &pool);
    ADD_FAILURE() << "shutdown() from the pool's own worker did not throw";
  } catch (const fj::deadlock_error& e) {
    EXPECT_EQ(std::string_view(e.what()), k_shut_down_by_own_worker);
  }
  EXPECT_EQ(fj::sync_wait(pool, fib, 10), 55);
}

fj::task<void> destroy(std::optional<fj::lazy_pool>* pool) {
  pool->reset();
  co_return;
}

TEST_F(MisuseDeathTest, DestroyingAPoolFromItsOwnWorkerStopsTheProcess) {
  EXPECT_DEATH(
      {
        std::optional<fj::lazy_pool> pool(std::in_place, 1);
        fj::sync_wait(*pool, destroy, &pool);
      },
      uncaught("fj::deadlock_error", k_shut_down_by_own_worker));
}

// ---- configuration ----

TEST_F(MisuseDeathTest, APoolWithoutWorkersNamesInvalidConfigError) {
  EXPECT_DEATH(uncaught_from([] { fj::busy_pool pool(0); }),
               uncaught("fj::invalid_config_error",
                        "fj: invalid pool configuration: a pool needs at least one worker (asked for 0)"));
}

fj::task<void> move_to_worker(fj::busy_pool* pool, std::size_t worker) {
  co_await fj::resume_on(*pool, worker);
}

TEST_F(MisuseDeathTest, ResumingOnAWorkerThatDoesNotExistNamesInvalidConfigError) {
  EXPECT_DEATH(uncaught_from([] {
                 fj::busy_pool pool(2);
                 fj::sync_wait(pool, move_to_worker, &pool, std::size_t{2});
               }),
               uncaught("fj::invalid_config_error",
                        "fj: invalid pool configuration: resume_on: worker 2 of a pool of 2"));
}

// ---- fork-join scopes whose continuation was stolen ----

// Returns once its parent's continuation has been stolen: the parent sets the flag only after the fork, and
// the worker that forked is busy here, so only a thief can have run it.
fj::task<void> wait_for_steal(std::atomic<bool>* stolen) {
  while (!stolen->load(std::memory_order_acquire)) std::this_thread::yield();
  co_return;
}

fj::task<void> resume_on_in_open_scope(fj::busy_pool* pool, std::atomic<bool>* stolen) {
  co_await fj::fork(wait_for_steal, stolen);
  stolen->store(true, std::memory_order_release);
  co_await fj::resume_on(*pool);
  co_await fj::join;
}

TEST_F(MisuseDeathTest, ResumeOnAfterAStealBeforeTheJoinNamesError) {
  EXPECT_DEATH(
      uncaught_from([] {
        std::atomic<bool> stolen{false};
        fj::busy_pool pool(2);
        fj::sync_wait(pool, resume_on_in_open_scope, &pool, &stolen);
      }),
      uncaught(
          "fj::open_scope_error",
          "fj: fj::resume_on inside an open fork-join scope whose continuation was stolen: co_await fj::join "
          "first"));
}

// ---- a value returned without a join ----

constexpr std::string_view k_returned_before_join =
    "fj: co_return of a value (evaluated before the implicit join, so it may read results of forked children "
    "that have not finished) inside an open fork-join scope whose continuation was stolen: co_await fj::join "
    "first";

// The child writes its result only once its parent's continuation has been stolen (the parent sets the flag
// after the fork, which only a thief can run while this worker is busy here), so the parent's co_return
// always comes before that result. It reads only b: `co_return a + b;` is the bug as users write it, but its
// read of a would race with the child's write (ThreadSanitizer reports it), and the check does not depend on
// what the expression reads.
fj::task<long> result_after_steal(std::atomic<bool>* stolen) {
  while (!stolen->load(std::memory_order_acquire)) std::this_thread::yield();
  co_return 40;
}

fj::task<long> sum_without_join(std::atomic<bool>* stolen) {
  long a = 0;
  long b = 0;
  co_await fj::fork(&a, result_after_steal, stolen);
  stolen->store(true, std::memory_order_release);
  co_await fj::call(&b, fib, 3);
  co_return b;  // no co_await fj::join: the value is computed while the forked child still runs
}

TEST_F(MisuseDeathTest, ReturningAValueWithoutAJoinAfterAStealNamesOpenScopeError) {
  EXPECT_DEATH(uncaught_from([] {
                 std::atomic<bool> stolen{false};
                 fj::busy_pool pool(2);
                 (void)fj::sync_wait(pool, sum_without_join, &stolen);
               }),
               uncaught("fj::open_scope_error", k_returned_before_join));
}

// The same through a parent's join: the error is the child's exception there.
fj::task<long> joins_a_sum_without_join(std::atomic<bool>* stolen) {
  long r = 0;
  co_await fj::fork(&r, sum_without_join, stolen);
  co_await fj::join;
  co_return r;
}

TEST_F(MisuseDeathTest, AValueReturnedWithoutAJoinIsRethrownAtTheParentsJoin) {
  std::atomic<bool> stolen{false};
  fj::busy_pool pool(2);
  try {
    (void)fj::sync_wait(pool, joins_a_sum_without_join, &stolen);
    ADD_FAILURE() << "a value returned without a join after a steal was not reported";
  } catch (const fj::open_scope_error& e) {
    EXPECT_EQ(std::string_view(e.what()), k_returned_before_join);
  }
  EXPECT_EQ(fj::sync_wait(pool, fib, 10), 55) << "the pool stays usable";
}

// Without a steal every forked child has finished by the co_return, so the value is right; checked builds
// report the missing join anyway (the fork marks the frame, the join clears the mark).
fj::task<long> fib_without_join(int n) {
  if (n < 2) co_return n;
  long a = 0;
  long b = 0;
  co_await fj::fork(&a, fib_without_join, n - 1);
  co_await fj::call(&b, fib_without_join, n - 2);
  co_return a + b;
}

// Forks and joins, then returns a value: never reported. A task<void> may return without a join.
fj::task<void> forks_without_join(long* out) { co_await fj::fork(out, fib, 10); }

fj::task<long> joins_then_returns() {
  long a = 0;
  long b = 0;
  co_await fj::fork(&a, fib, 10);
  co_await fj::join;
  co_await fj::fork(forks_without_join, &b);
  co_await fj::join;
  co_return a + b;
}

TEST_F(MisuseDeathTest, AValueReturnedWithoutAJoinStopsCheckedBuildsEvenWithoutASteal) {
  {
    fj::unit_pool pool;
    EXPECT_EQ(fj::sync_wait(pool, joins_then_returns), 110);
  }
  if (!fj::detail::k_stack_checks)
    GTEST_SKIP() << "a missing join without a steal is detected only in checked builds (FJ_STACK_CHECKS=1)";
  EXPECT_DEATH(uncaught_from([] {
                 fj::unit_pool pool;
                 (void)fj::sync_wait(pool, fib_without_join, 10);
               }),
               uncaught("fj::open_scope_error", k_returned_before_join));
}

// ---- scratch arrays ----

constexpr std::string_view k_scratch_misuse =
    "fj: an fj::scratch array was freed out of order, or across a fork-join scope (create scratch arrays "
    "before the first fork and let them die after the join)";

fj::task<void> scratch_freed_out_of_order() {
  std::optional<fj::scratch<int>> first(std::in_place, 8);
  fj::scratch<int> second(8);
  first.reset();
  co_return;
}

TEST_F(MisuseDeathTest, AScratchArrayFreedOutOfOrderStopsTheProcess) {
  EXPECT_DEATH(
      {
        fj::lazy_pool pool(1);
        fj::sync_wait(pool, scratch_freed_out_of_order);
      },
      literal(k_scratch_misuse));
}

// The array is made by the stolen continuation on the thief's stack and dies after the join, when the frame
// is back on its own stack. Which check fires depends on who arrives last at the join: if the child is still
// running, the frame resumes on its stack and the scratch destructor reports the misuse; if the child has
// returned, the thief itself must take the frame's stack back while the array still sits on its own, and the
// runtime stops at that broken invariant instead.
fj::task<void> scratch_across_a_join(std::atomic<bool>* stolen) {
  co_await fj::fork(wait_for_steal, stolen);
  stolen->store(true, std::memory_order_release);
  fj::scratch<int> inside(8);
  co_await fj::join;
}

TEST_F(MisuseDeathTest, AScratchArrayLivingAcrossAJoinStopsTheProcess) {
  EXPECT_DEATH(
      {
        std::atomic<bool> stolen{false};
        fj::busy_pool pool(2);
        fj::sync_wait(pool, scratch_across_a_join, &stolen);
      },
      literal(k_scratch_misuse) + "|" +
          literal(
              "fj: a worker taking over a stack at a join still had frames on its own: an fj::task created "
              "and kept unstarted, or an fj::scratch array kept alive, across a fork and its join"));
}

// Two tasks created first and started in creation order: the first one's frame is below the second's, so
// finishing it first would free the second's frame with it (found in review: a crash in release builds,
// which do not check). Started newest first, they would be fine.
fj::task<int> leaf(int n) { co_return n; }

fj::task<int> tasks_started_out_of_order() {
  fj::task<int> first = leaf(1);
  fj::task<int> second = leaf(2);
  int a = 0;
  int b = 0;
  co_await fj::call(&a, [&] { return std::move(first); });  // `second` is still above it
  co_await fj::call(&b, [&] { return std::move(second); });
  co_return a + b;
}

TEST_F(MisuseDeathTest, ATaskStartedLongAfterItWasCreatedStopsTheProcessInCheckedBuilds) {
  if (!fj::detail::k_stack_checks)
    GTEST_SKIP()
        << "fork and call check the child's place on the stack only in checked builds (FJ_STACK_CHECKS=1)";
  EXPECT_DEATH(
      {
        fj::unit_pool pool;
        (void)fj::sync_wait(pool, tasks_started_out_of_order);
      },
      literal("fj: fj::fork/fj::call started a task that was not created right before it"));
}

// The result of fj::fork kept and then dropped on an early return: the child was created and is never started
// (found in review: release builds silently never destroyed its parameters; checked builds stopped with an
// internal-invariant message that blamed the runtime).
fj::task<int> counted(std::string s) { co_return static_cast<int>(s.size()); }

fj::task<int> drops_a_fork(bool give_up) {
  int r = 0;
  auto started = fj::fork(&r, counted, std::string(32, 'x'));
  if (give_up) co_return -1;
  co_await std::move(started);
  co_await fj::join;
  co_return r;
}

constexpr std::string_view k_fork_dropped =
    "fj: the result of fj::fork/fj::call was destroyed without being co_awaited";

TEST_F(MisuseDeathTest, AForkResultDroppedWithoutCoAwaitStopsTheProcess) {
  {
    fj::unit_pool pool;
    EXPECT_EQ(fj::sync_wait(pool, drops_a_fork, false), 32) << "awaited later, the same result is fine";
  }
  EXPECT_DEATH(
      {
        fj::unit_pool pool;
        (void)fj::sync_wait(pool, drops_a_fork, true);
      },
      literal(k_fork_dropped));
}

// The statement a user meant to await (found by a user: a Release build printed fib(20) = 0, the
// [[nodiscard]] warning its only sign). Checked in every build.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-result"
fj::task<long> fib_forgetting_co_await(int n) {
  if (n < 2) co_return n;
  long a = 0;
  long b = 0;
  fj::fork(&a, fib_forgetting_co_await, n - 1);
  co_await fj::call(&b, fib_forgetting_co_await, n - 2);
  co_await fj::join;
  co_return a + b;
}

fj::task<long> fib_forgetting_co_await_on_call(int n) {
  if (n < 2) co_return n;
  long a = 0;
  long b = 0;
  co_await fj::fork(&a, fib_forgetting_co_await_on_call, n - 1);
  fj::call(&b, fib_forgetting_co_await_on_call, n - 2);
  co_await fj::join;
  co_return a + b;
}
#pragma GCC diagnostic pop

TEST_F(MisuseDeathTest, AForkWithoutCoAwaitStopsTheProcessInEveryBuild) {
  EXPECT_DEATH(
      {
        fj::busy_pool pool(2);
        (void)fj::sync_wait(pool, fib_forgetting_co_await, 20);
      },
      literal(k_fork_dropped));
}

TEST_F(MisuseDeathTest, ACallWithoutCoAwaitStopsTheProcessInCheckedBuilds) {
  if (!fj::detail::k_stack_checks)
    GTEST_SKIP() << "an unawaited fj::call is detected only in checked builds (FJ_STACK_CHECKS=1)";
  EXPECT_DEATH(
      {
        fj::unit_pool pool;
        (void)fj::sync_wait(pool, fib_forgetting_co_await_on_call, 20);
      },
      literal(k_fork_dropped));
}

// ---- the segmented stack's own checks (internal, reached only through fj::detail) ----

TEST_F(MisuseDeathTest, AStackDestroyedWithFramesOnItStopsTheProcess) {
  EXPECT_DEATH(
      {
        fj::detail::segmented_stack stack;
        (void)stack.allocate(64);
      },
      literal(
          "fj: internal invariant broken: segmented_stack destroyed while frames are still allocated on it"));
}

// What operator delete does when a task is dropped on a thread that is not a worker (an fj::task moved off
// its worker): the shared no_worker() stack refuses, instead of taking the frame and then handing out memory.
TEST_F(MisuseDeathTest, FreeingAFrameOnAThreadThatIsNotAWorkerStopsTheProcess) {
  EXPECT_DEATH(
      {
        alignas(16) static std::byte frame[64];
        fj::detail::segmented_stack::no_worker()->deallocate(frame, sizeof frame);
      },
      literal("fj: a task was destroyed on a thread that is not a forkjoin worker"));
}

TEST_F(MisuseDeathTest, FreeingAFrameThatIsNotTheLastStopsTheProcessInCheckedBuilds) {
  if (!fj::detail::k_stack_checks)
    GTEST_SKIP() << "deallocate() checks its argument only in checked builds (FJ_STACK_CHECKS=1)";
  EXPECT_DEATH(
      {
        fj::detail::segmented_stack stack;
        void* const first = stack.allocate(64);
        (void)stack.allocate(64);
        stack.deallocate(first, 64);
      },
      literal("fj: internal invariant broken: segmented_stack::deallocate of a block that is not the last "
              "allocation"));
}

}  // namespace
