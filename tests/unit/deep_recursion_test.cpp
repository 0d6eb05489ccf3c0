// No stack overflow from depth: chains of 10^6 nested calls and forks complete on workers whose OS stack is
// small, because frames live on segmented stacks and control passes by symmetric transfer (or, in the g++
// builds that make no tail calls, by the runtime's trampoline: detail/transfer.hpp).

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

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

}  // namespace
