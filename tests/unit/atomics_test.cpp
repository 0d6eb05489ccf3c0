// fj::detail fences: build detection, the asymmetric-fence switch, and a store-buffering litmus test showing
// that light_fence() on one side and heavy_fence() on the other forbid the outcome that no fence allows.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "forkjoin/detail/atomics.hpp"
#include "support/test_config.hpp"

namespace {

namespace detail = fj::detail;

TEST(Atomics, TsanBuildMatchesTheSanitizerInUse) { EXPECT_EQ(detail::tsan_build, fj::test::tsan); }

TEST(Atomics, EnablingAsymmetricFencesIsIdempotent) {
  const bool first = detail::enable_asymmetric_fences();
  EXPECT_EQ(detail::enable_asymmetric_fences(), first);
  EXPECT_EQ(detail::asymmetric_fences_active(), first);
}

TEST(Atomics, AsymmetricFencesAreNeverActiveUnderTsan) {
  if (detail::tsan_build) {
    EXPECT_FALSE(detail::enable_asymmetric_fences());
    EXPECT_FALSE(detail::asymmetric_fences_active());
  } else {
    GTEST_SKIP() << "not a TSan build";
  }
}

TEST(Atomics, EveryFenceCanBeCalledFromOneThread) {
  detail::enable_asymmetric_fences();
  detail::compiler_fence();
  detail::seq_cst_fence();
  detail::light_fence();
  detail::heavy_fence();
  SUCCEED();
}

// Store buffering, one fresh pair of variables per round so that no round depends on another:
//   frequent thread: x = 1; light_fence(); r1 = y
//   rare thread:     y = 1; heavy_fence(); r2 = x
// r1 == 0 && r2 == 0 is forbidden.
TEST(Atomics, LightAndHeavyFencesForbidStoreBuffering) {
  if (detail::tsan_build) {
    GTEST_SKIP() << "TSan does not model fences; the TSan build uses no fences (docs/protocols/deque.md)";
  }
  detail::enable_asymmetric_fences();  // before the threads start, as asymmetric_fences_active() requires
  const std::uint64_t rounds = fj::test::scaled(20'000, 500);
  auto x = std::make_unique<std::atomic<int>[]>(rounds);
  auto y = std::make_unique<std::atomic<int>[]>(rounds);
  auto r1 = std::make_unique<int[]>(rounds);
  auto r2 = std::make_unique<int[]>(rounds);
  std::atomic<std::uint64_t> go{0};

  std::thread frequent([&] {
    for (std::uint64_t i = 0; i < rounds; ++i) {
      // acquire: pairs with the rare thread's release store of go; it only lines the two threads up.
      while (go.load(std::memory_order_acquire) <= i) {
      }
      // relaxed: ordered against the load below only by light_fence(), which is the point of the test.
      x[i].store(1, std::memory_order_relaxed);
      detail::light_fence();
      r1[i] = y[i].load(std::memory_order_relaxed);
    }
  });
  for (std::uint64_t i = 0; i < rounds; ++i) {
    // release: pairs with the frequent thread's acquire load; starts round i.
    go.store(i + 1, std::memory_order_release);
    // relaxed: ordered against the load below by heavy_fence().
    y[i].store(1, std::memory_order_relaxed);
    detail::heavy_fence();
    r2[i] = x[i].load(std::memory_order_relaxed);
  }
  frequent.join();

  std::uint64_t both_missed = 0;
  for (std::uint64_t i = 0; i < rounds; ++i) {
    both_missed += (r1[i] == 0 && r2[i] == 0) ? 1 : 0;
  }
  EXPECT_EQ(both_missed, 0U) << "store buffering observed with light_fence() + heavy_fence()";
}

}  // namespace
