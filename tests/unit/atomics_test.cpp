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

TEST(Atomics, ReleaseAndAcquireFencesPublishPlainData) {
  // Message passing through fences. In a TSan build this checks that the fences' stand-ins make TSan see the
  // synchronization (a plain fence would give a false race report here).
  int data = 0;
  std::atomic<bool> ready{false};
  std::thread writer([&] {
    data = 42;
    detail::release_fence();
    // relaxed: ordered by the release fence above; pairs with the acquire fence below.
    ready.store(true, std::memory_order_relaxed);
  });
  // relaxed: followed by the acquire fence.
  while (!ready.load(std::memory_order_relaxed)) {
    std::this_thread::yield();
  }
  detail::acquire_fence();
  EXPECT_EQ(data, 42);
  writer.join();
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
  const std::uint64_t rounds = fj::test::scaled(100'000, 1'000);
  auto x = std::make_unique<std::atomic<int>[]>(rounds);
  auto y = std::make_unique<std::atomic<int>[]>(rounds);
  auto r1 = std::make_unique<int[]>(rounds);
  auto r2 = std::make_unique<int[]>(rounds);
  // Both threads arrive at a two-party barrier before each round and leave it together, so that their
  // accesses overlap in time; otherwise the litmus test would pass whatever the fences did.
  std::atomic<std::uint64_t> arrivals{0};
  auto line_up = [&arrivals](std::uint64_t round) {
    // acq_rel: pairs with the other thread's fetch_add; it only lines the two threads up.
    arrivals.fetch_add(1, std::memory_order_acq_rel);
    // acquire: as above.
    for (std::uint32_t spins = 1; arrivals.load(std::memory_order_acquire) < 2 * (round + 1); ++spins) {
      if (spins % 4096 == 0) {
        std::this_thread::yield();  // the other thread may not be running: the machine can be oversubscribed
      }
    }
  };

  std::thread frequent([&] {
    for (std::uint64_t i = 0; i < rounds; ++i) {
      line_up(i);
      // relaxed: ordered against the load below only by light_fence(), which is the point of the test.
      x[i].store(1, std::memory_order_relaxed);
      detail::light_fence();
      r1[i] = y[i].load(std::memory_order_relaxed);
    }
  });
  for (std::uint64_t i = 0; i < rounds; ++i) {
    line_up(i);
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
