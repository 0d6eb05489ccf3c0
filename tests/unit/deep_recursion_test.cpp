// No stack overflow from depth: chains of 10^6 nested calls and forks complete on workers whose OS stack is
// small, because frames live on segmented stacks and control passes by symmetric transfer (or, in the g++
// builds that make no tail calls, by the runtime's trampoline: detail/transfer.hpp).

#include <gtest/gtest.h>
#include <forkjoin/detail/worker_context.hpp>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

#include "support/test_config.hpp"

namespace {

constexpr std::size_t small_os_stack = std::size_t{128} * 1024;

int chain_depth() { return static_cast<int>(fj::test::scaled(1'000'000, 10'000)); }

fj::task<long> call_chain(int depth) {
  if (depth == 0) co_return 0;
  long r = 0;
  co_await fj::call(&r, call_chain, depth - 1);
  co_return r + 1;
}

fj::task<long> fork_chain(int depth) {
  if (depth == 0) co_return 0;
  long r = 0;
  co_await fj::fork(&r, fork_chain, depth - 1);
  co_await fj::join;
  co_return r + 1;
}

TEST(DeepRecursion, MillionNestedCallsCompleteOnASmallOsStack) {
  fj::busy_pool pool(fj::pool_options{.workers = 1, .thread_stack_size = small_os_stack});
  int const depth = chain_depth();
  EXPECT_EQ(fj::sync_wait(pool, call_chain, depth), depth);
}

TEST(DeepRecursion, MillionNestedForksCompleteOnASmallOsStack) {
  fj::busy_pool pool(fj::pool_options{.workers = 1, .thread_stack_size = small_os_stack});
  int const depth = chain_depth();
  EXPECT_EQ(fj::sync_wait(pool, fork_chain, depth), depth);
}

TEST(DeepRecursion, DeepForkChainsSurviveStealingOnSeveralWorkers) {
  fj::busy_pool pool(fj::pool_options{.workers = 4, .thread_stack_size = small_os_stack});
  int const depth = chain_depth() / 10;
  EXPECT_EQ(fj::sync_wait(pool, fork_chain, depth), depth);
}

// Each level forks the next and returns without a join, and its continuation is stolen before the child goes
// on (the child waits for it): when the bottom returns, every level above is a stolen frame waiting at its
// final suspend for its only child, and the returns finish them one after another. They used to do it with
// nested calls (finish, return_to_stolen_parent, finish, ...: two native frames per level), and a chain of a
// few thousand overflowed a 128 KiB worker stack (found in review).
struct steal_chain {
  std::vector<std::atomic<bool>> continued;  // continued[d]: the continuation of level d has run (on a thief)
  explicit steal_chain(int depth) : continued(static_cast<std::size_t>(depth) + 1) {}
};

fj::task<void> stolen_implicit_join_chain(steal_chain* chain, int depth) {
  auto const parent = static_cast<std::size_t>(depth) + 1;
  if (parent < chain->continued.size()) {
    // acquire: pairs with the parent's release store below.
    while (!chain->continued[parent].load(std::memory_order_acquire)) std::this_thread::yield();
  }
  if (depth == 0) co_return;
  co_await fj::fork(stolen_implicit_join_chain, chain, depth - 1);
  // release: our child, still waiting on another worker, may go on. No join: the return joins implicitly.
  chain->continued[static_cast<std::size_t>(depth)].store(true, std::memory_order_release);
}

TEST(DeepRecursion, AChainOfStolenTasksWaitingAtTheirImplicitJoinFinishesOnASmallOsStack) {
  fj::busy_pool pool(fj::pool_options{.workers = 2, .thread_stack_size = small_os_stack});
  auto const depth = static_cast<int>(fj::test::scaled(20'000, 5'000));
  steal_chain chain(depth);
  fj::sync_wait(pool, stolen_implicit_join_chain, &chain, depth);
  std::uint64_t steals = 0;
  for (const auto& w : pool.stats()) steals += w.steals;
  EXPECT_GE(steals, static_cast<std::uint64_t>(depth));
}

// A task's final suspend frees its frame on its fast path (segmented_stack::deallocate_last), which must move
// the stack back to the stacklet below when the frame was the first of its stacklet (stack.md "Allocation and
// deallocation"). So after chains that cross stacklet boundaries have returned, the worker's stack must be
// exactly as before, however many boundaries the returns crossed: each depth below ends at a different offset
// within its last stacklet. (Written for an experiment that moved that test into a flag the allocator sets,
// docs/experiments.md "A block prefix": with the flag never set this test crashed.)
struct chain_run {
  int depth = 0;
  long result = 0;
  std::size_t before = 0;  // the worker's stack usage before the chain
  std::size_t after = 0;   // and after it returned
};

fj::task<void> chains_of_depths(std::vector<chain_run>* runs, bool forked) {
  for (chain_run& run : *runs) {
    run.before = fj::detail::tls_stack->used_bytes();
    if (forked) {
      co_await fj::fork(&run.result, fork_chain, run.depth);
      co_await fj::join;
    } else {
      co_await fj::call(&run.result, call_chain, run.depth);
    }
    run.after = fj::detail::tls_stack->used_bytes();
  }
}

TEST(DeepRecursion, ReturnsAcrossStackletBoundariesLeaveTheStackAsItWas) {
  fj::unit_pool pool;
  for (bool const forked : {false, true}) {
    std::vector<chain_run> runs(40);
    for (std::size_t i = 0; i < runs.size(); ++i) runs[i].depth = static_cast<int>(100 + 97 * i);
    fj::sync_wait(pool, chains_of_depths, &runs, forked);
    for (const chain_run& run : runs) {
      std::string const what = "depth " + std::to_string(run.depth) + (forked ? ", forks" : ", calls");
      EXPECT_EQ(run.result, run.depth) << what;
      EXPECT_GT(run.before, 0u) << what;
      EXPECT_EQ(run.after, run.before) << what;
    }
  }
}

}  // namespace
