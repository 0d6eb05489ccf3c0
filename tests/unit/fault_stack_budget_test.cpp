// The stack budget (pool_options::stack_budget, docs/protocols/stack.md "Stack budget"): recursion that would
// take a segmented stack beyond it fails with fj::stack_budget_error where the task was created, the error
// reaches sync_wait, and the pool stays usable. The budget covers every stack of the pool: a worker's own, a
// thief's fresh one, and the root's (whose frame sync_wait makes on the calling thread).

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <string>

#include "support/test_config.hpp"

namespace {

constexpr std::size_t k_small_budget = std::size_t{64} * 1024;

fj::task<long> call_chain(int depth) {
  if (depth == 0) co_return 0;
  long r = 0;
  co_await fj::call(&r, call_chain, depth - 1);
  co_await fj::join;
  co_return r + 1;
}

fj::task<long> fork_chain(int depth) {
  if (depth == 0) co_return 0;
  long r = 0;
  co_await fj::fork(&r, fork_chain, depth - 1);
  co_await fj::join;
  co_return r + 1;
}

// Deep enough for any frame size to overflow 64 KiB; the recursion stops at the budget (a few hundred
// frames), so the OS stack is safe even where g++ makes no tail calls
// (docs/traps.md "g++ and symmetric transfer").
constexpr int k_too_deep = 100'000;
// Shallow enough for 64 KiB with any frame size we build (about 60 KiB of stacklets, frames under 1 KiB).
constexpr int k_fits = 40;

fj::pool_options small_budget(std::size_t workers) {
  fj::pool_options o;
  o.workers = workers;
  o.stack_budget = k_small_budget;
  return o;
}

TEST(StackBudget, DefaultIsOneGibibytePerStack) {
  EXPECT_EQ(fj::pool_options{}.stack_budget, std::size_t{1} << 30);
  EXPECT_EQ(fj::default_stack_budget, std::size_t{1} << 30);
}

template <class Pool>
void check_deep_recursion_fails_and_pool_survives(Pool& pool, fj::task<long> (*chain)(int)) {
  for (int round = 0; round < 3; ++round) {
    try {
      (void)fj::sync_wait(pool, chain, k_too_deep);
      FAIL() << "recursion " << k_too_deep << " deep fit in a budget of " << k_small_budget << " bytes";
    } catch (const fj::stack_budget_error& e) {
      EXPECT_EQ(e.budget(), k_small_budget);
      EXPECT_GT(e.request(), 0u);
      EXPECT_GT(e.would_hold(), k_small_budget);
      std::string const what = e.what();
      EXPECT_NE(what.find("stack budget of 65536 bytes exceeded"), std::string::npos) << what;
      EXPECT_NE(what.find("raise fj::pool_options::stack_budget"), std::string::npos) << what;
    }
    // The pool is usable afterwards, on the same budget.
    EXPECT_EQ(fj::sync_wait(pool, chain, k_fits), k_fits);
  }
}

TEST(StackBudget, DeepCallsBeyondTheBudgetThrowAtSyncWaitAndThePoolStaysUsable) {
  fj::busy_pool pool(small_budget(1));
  check_deep_recursion_fails_and_pool_survives(pool, call_chain);
}

TEST(StackBudget, DeepForksBeyondTheBudgetThrowOnSeveralWorkers) {
  fj::busy_pool busy(small_budget(2));
  check_deep_recursion_fails_and_pool_survives(busy, fork_chain);
  fj::lazy_pool lazy(small_budget(2));
  check_deep_recursion_fails_and_pool_survives(lazy, fork_chain);
}

TEST(StackBudget, ABudgetLargeEnoughLetsTheSameRecursionFinish) {
  fj::pool_options o = small_budget(1);
  o.stack_budget = fj::unlimited_stack_budget;
  fj::busy_pool pool(o);
  int const depth = fj::test::gcc_no_tail_calls ? 2'000 : 20'000;
  EXPECT_EQ(fj::sync_wait(pool, call_chain, depth), depth);
}

// The parent's continuation is stolen while the forked child waits; the thief then recurses deeply, on the
// fresh stack it got for the steal. The child only returns once the continuation ran, so it really was
// stolen.
fj::task<void> wait_for_thief(const std::atomic<bool>* stolen) {
  // acquire: pairs with the release store of the continuation.
  while (!stolen->load(std::memory_order_acquire)) {
  }
  co_return;
}

fj::task<long> deep_on_the_thief(std::atomic<bool>* stolen) {
  co_await fj::fork(wait_for_thief, stolen);
  // release: lets the child return; nothing else is published.
  stolen->store(true, std::memory_order_release);
  long r = 0;
  co_await fj::call(&r, call_chain, k_too_deep);
  co_await fj::join;
  co_return r;
}

TEST(StackBudget, AppliesToTheFreshStackOfAThief) {
  fj::busy_pool pool(small_budget(2));
  std::atomic<bool> stolen{false};
  EXPECT_THROW((void)fj::sync_wait(pool, deep_on_the_thief, &stolen), fj::stack_budget_error);
  EXPECT_TRUE(stolen.load());
  std::uint64_t steals = 0;
  for (const auto& s : pool.stats()) steals += s.steals;
  EXPECT_GE(steals, 1u);
}

fj::task<int> big_root(std::array<unsigned char, std::size_t{16} * 1024> bytes) {
  int sum = 0;
  for (unsigned char b : bytes) sum += b;
  co_return sum;
}

TEST(StackBudget, AppliesToTheRootFrameThatSyncWaitMakesOnTheCallingThread) {
  std::array<unsigned char, std::size_t{16} * 1024> bytes{};
  bytes[7] = 3;
  fj::pool_options o = small_budget(1);
  o.stack_budget = std::size_t{8} * 1024;
  fj::busy_pool tight(o);
  try {
    (void)fj::sync_wait(tight, big_root, bytes);
    FAIL() << "a root frame of more than 16 KiB fit in a budget of 8 KiB";
  } catch (const fj::stack_budget_error& e) {
    EXPECT_EQ(e.budget(), 8u * 1024u);
    EXPECT_GE(e.request(), bytes.size());
  }
  fj::busy_pool roomy(small_budget(1));
  EXPECT_EQ(fj::sync_wait(roomy, big_root, bytes), 3);
}

TEST(StackBudget, ABudgetSmallerThanOneStackletIsAnInvalidConfiguration) {
  fj::pool_options o = small_budget(1);
  o.stack_budget = 1000;
  try {
    fj::busy_pool pool(o);
    FAIL() << "a pool accepted a stack budget of 1000 bytes";
  } catch (const fj::invalid_config_error& e) {
    EXPECT_NE(std::string(e.what()).find("stack_budget must be at least 4096 bytes"), std::string::npos)
        << e.what();
  }
}

// What a user sees when nothing catches the error (here: it leaves a noexcept function, as it would leave
// main): std::terminate prints the type and the message, which says the budget and how to raise it.
TEST(StackBudgetDeathTest, AnUncaughtBudgetErrorEndsTheProgramWithANamedMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        []() noexcept {
          fj::busy_pool pool(small_budget(1));
          (void)fj::sync_wait(pool, call_chain, k_too_deep);
        }();
      },
      "fj::stack_budget_error.*fj: stack budget of 65536 bytes exceeded: a frame of [0-9]+ bytes needed a "
      "new "
      "stacklet.*raise fj::pool_options::stack_budget");
}

}  // namespace
