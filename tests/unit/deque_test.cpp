// Single-threaded behaviour of fj::deque (smoke, empty, growth, handles, steal_result).
// Concurrent behaviour is in tests/stress/deque_stress_test.cpp.

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <type_traits>

#include "forkjoin/errors.hpp"
#include "forkjoin/ext/deque.hpp"

namespace {

using fj::deque;
using fj::deque_fences;
using fj::steal_status;

// Every test runs in both fence modes; the single-threaded results must not depend on the mode.
class Deque : public ::testing::TestWithParam<deque_fences> {};

INSTANTIATE_TEST_SUITE_P(FenceModes, Deque,
                         ::testing::Values(deque_fences::automatic, deque_fences::symmetric),
                         [](const ::testing::TestParamInfo<deque_fences>& mode) {
                           return mode.param == deque_fences::automatic ? "Automatic" : "Symmetric";
                         });

TEST_P(Deque, PopReturnsItemsInLastInFirstOutOrder) {
  deque<int> d(8, GetParam());
  auto owner = d.owner();
  for (int i = 0; i < 5; ++i) {
    owner.push(i);
  }
  for (int i = 4; i >= 0; --i) {
    EXPECT_EQ(owner.pop(), std::optional<int>(i));
  }
  EXPECT_EQ(owner.pop(), std::nullopt);
}

TEST_P(Deque, StealReturnsItemsInFirstInFirstOutOrder) {
  deque<int> d(8, GetParam());
  auto owner = d.owner();
  auto thief = d.thief();
  for (int i = 0; i < 5; ++i) {
    owner.push(i);
  }
  for (int i = 0; i < 5; ++i) {
    const auto r = thief.steal();
    ASSERT_EQ(r.status, steal_status::success);
    EXPECT_EQ(r.value, i);
  }
  EXPECT_EQ(thief.steal().status, steal_status::empty);
}

TEST_P(Deque, PopAndStealTakeFromOppositeEnds) {
  deque<int> d(8, GetParam());
  auto owner = d.owner();
  auto thief = d.thief();
  owner.push(1);
  owner.push(2);
  owner.push(3);
  EXPECT_EQ(thief.steal().value, 1);
  EXPECT_EQ(owner.pop(), std::optional<int>(3));
  EXPECT_EQ(thief.steal().value, 2);
  EXPECT_EQ(owner.pop(), std::nullopt);
  EXPECT_EQ(thief.steal().status, steal_status::empty);
}

TEST_P(Deque, NewDequeIsEmptyForOwnerAndThief) {
  deque<int> d(1024, GetParam());
  auto owner = d.owner();
  auto thief = d.thief();
  EXPECT_TRUE(owner.empty());
  EXPECT_TRUE(thief.empty());
  EXPECT_EQ(owner.pop(), std::nullopt);
  const auto r = thief.steal();
  EXPECT_EQ(r.status, steal_status::empty);
  EXPECT_FALSE(r);
}

TEST_P(Deque, RepeatedPopOnEmptyDequeLeavesItUsable) {
  deque<int> d(2, GetParam());
  auto owner = d.owner();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(owner.pop(), std::nullopt);
  }
  owner.push(7);
  EXPECT_FALSE(owner.empty());
  EXPECT_FALSE(d.thief().empty());
  EXPECT_EQ(owner.pop(), std::optional<int>(7));
  EXPECT_TRUE(owner.empty());
}

TEST_P(Deque, EmptyAfterLastItemIsStolen) {
  deque<int> d(4, GetParam());
  auto owner = d.owner();
  owner.push(1);
  EXPECT_TRUE(d.thief().steal());
  EXPECT_TRUE(owner.empty());
  EXPECT_EQ(owner.pop(), std::nullopt);
}

TEST_P(Deque, StealCallsBeforeClaimOnceWhenThereIsAnItemAndNeverWhenEmpty) {
  deque<int> d(4, GetParam());
  auto owner = d.owner();
  auto thief = d.thief();
  int calls = 0;
  auto count = [&]() noexcept { ++calls; };
  EXPECT_EQ(thief.steal(count).status, fj::steal_status::empty);
  EXPECT_EQ(calls, 0);
  owner.push(7);
  owner.push(8);
  auto const r = thief.steal(count);
  ASSERT_TRUE(r);
  EXPECT_EQ(r.value, 7);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(owner.pop(), std::optional<int>(8));
  EXPECT_EQ(thief.steal(count).status, fj::steal_status::empty);
  EXPECT_EQ(calls, 1);
}

TEST_P(Deque, GrowthKeepsLifoOrderAcrossManyPushes) {
  deque<std::int64_t> d(1, GetParam());
  auto owner = d.owner();
  constexpr std::int64_t n = 10'000;
  for (std::int64_t i = 0; i < n; ++i) {
    owner.push(i);
  }
  EXPECT_GE(d.capacity(), static_cast<std::size_t>(n));
  for (std::int64_t i = n - 1; i >= 0; --i) {
    ASSERT_EQ(owner.pop(), std::optional<std::int64_t>(i));
  }
  EXPECT_EQ(owner.pop(), std::nullopt);
}

TEST_P(Deque, GrowthKeepsFifoOrderForThieves) {
  deque<std::int64_t> d(2, GetParam());
  auto owner = d.owner();
  auto thief = d.thief();
  constexpr std::int64_t n = 5'000;
  for (std::int64_t i = 0; i < n; ++i) {
    owner.push(i);
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const auto r = thief.steal();
    ASSERT_EQ(r.status, steal_status::success);
    ASSERT_EQ(r.value, i);
  }
}

TEST_P(Deque, GrowthAfterWrapAroundKeepsEveryItem) {
  // Move the window [top, bottom) around the ring before it grows, so the copy must unwrap it.
  deque<int> d(4, GetParam());
  auto owner = d.owner();
  auto thief = d.thief();
  int next_stolen = 0;
  int next_pushed = 0;
  for (int lap = 0; lap < 3; ++lap) {
    owner.push(next_pushed++);
    owner.push(next_pushed++);
    EXPECT_EQ(thief.steal().value, next_stolen++);
    EXPECT_EQ(thief.steal().value, next_stolen++);
  }
  for (int i = 0; i < 9; ++i) {
    owner.push(next_pushed++);
  }
  EXPECT_GE(d.capacity(), 9U);
  while (next_stolen < next_pushed) {
    const auto r = thief.steal();
    ASSERT_TRUE(r);
    EXPECT_EQ(r.value, next_stolen++);
  }
  EXPECT_EQ(owner.pop(), std::nullopt);
}

TEST_P(Deque, CapacityStaysWhenItemsFit) {
  deque<int> d(4, GetParam());
  auto owner = d.owner();
  for (int round = 0; round < 100; ++round) {
    for (int i = 0; i < 4; ++i) {
      owner.push(i);
    }
    for (int i = 0; i < 4; ++i) {
      ASSERT_TRUE(owner.pop().has_value());
    }
  }
  EXPECT_EQ(d.capacity(), 4U);
}

TEST_P(Deque, HoldsPointers) {
  int a = 1;
  int b = 2;
  deque<int*> d(16, GetParam());
  auto owner = d.owner();
  owner.push(&a);
  owner.push(&b);
  EXPECT_EQ(d.thief().steal().value, &a);
  EXPECT_EQ(owner.pop(), std::optional<int*>(&b));
}

TEST(DequeConstruction, RejectsCapacityThatIsNotAPowerOfTwo) {
  EXPECT_THROW(deque<int>(0), fj::invalid_config_error);
  EXPECT_THROW(deque<int>(3), fj::invalid_config_error);
  EXPECT_THROW(deque<int>(1000), fj::invalid_config_error);
  EXPECT_NO_THROW(deque<int>(1));
  EXPECT_NO_THROW(deque<int>(64));
}

TEST(DequeConstruction, SymmetricModeNeverUsesAsymmetricFences) {
  deque<int> d(8, deque_fences::symmetric);
  EXPECT_FALSE(d.uses_asymmetric_fences());
}

TEST(DequeConstruction, AutomaticModeFollowsThePlatform) {
  deque<int> d(8, deque_fences::automatic);
  EXPECT_EQ(d.uses_asymmetric_fences(), fj::detail::enable_asymmetric_fences());
  if (fj::detail::tsan_build) {
    EXPECT_FALSE(d.uses_asymmetric_fences());
  }
}

// Asymmetric mode: one thief at a time may issue the membarrier on a deque; a second thief that finds work
// meanwhile is told to look elsewhere (docs/protocols/deque.md, "One heavy fence per steal").
TEST(DequeAsymmetric, ASecondThiefWhileTheFirstClaimsIsToldContended) {
  deque<int> d(8, deque_fences::automatic);
  if (!d.uses_asymmetric_fences()) GTEST_SKIP() << "asymmetric fences are off on this platform or build";
  auto owner = d.owner();
  owner.push(1);
  owner.push(2);
  auto first = d.thief();
  auto second = d.thief();
  fj::steal_result<int> inner{steal_status::empty, 0, false};
  const fj::steal_result<int> outer = first.steal([&]() noexcept { inner = second.steal(); });
  EXPECT_EQ(inner.status, steal_status::contended);
  EXPECT_FALSE(inner.heavy_fence);
  ASSERT_EQ(outer.status, steal_status::success);
  EXPECT_EQ(outer.value, 1);
  EXPECT_TRUE(outer.heavy_fence);
  // The token was given back: the second thief now gets the other item, paying one fence.
  const fj::steal_result<int> next = second.steal();
  ASSERT_EQ(next.status, steal_status::success);
  EXPECT_EQ(next.value, 2);
  EXPECT_TRUE(next.heavy_fence);
  // An empty deque costs no fence.
  const fj::steal_result<int> none = second.steal();
  EXPECT_EQ(none.status, steal_status::empty);
  EXPECT_FALSE(none.heavy_fence);
}

TEST(DequeAsymmetric, SymmetricModeNeverReportsAHeavyFence) {
  deque<int> d(8, deque_fences::symmetric);
  auto owner = d.owner();
  owner.push(1);
  const fj::steal_result<int> r = d.thief().steal();
  ASSERT_EQ(r.status, steal_status::success);
  EXPECT_FALSE(r.heavy_fence);
}

TEST(StealResult, ConvertsToTrueOnlyOnSuccess) {
  EXPECT_TRUE(static_cast<bool>(fj::steal_result<int>{steal_status::success, 3, false}));
  EXPECT_FALSE(static_cast<bool>(fj::steal_result<int>{steal_status::empty, 0, false}));
  EXPECT_FALSE(static_cast<bool>(fj::steal_result<int>{steal_status::lost_race, 0, false}));
  EXPECT_FALSE(static_cast<bool>(fj::steal_result<int>{steal_status::contended, 0, false}));
}

// Handles are the only way in: no public push/pop/steal on the deque itself; handles are small and copyable.
template <class D>
concept has_public_push = requires(D& d) { d.push(1); };
template <class D>
concept has_public_pop = requires(D& d) { d.pop(); };
template <class D>
concept has_public_steal = requires(D& d) { d.steal(); };
template <class H>
concept can_steal = requires(H& h) { h.steal(); };
template <class H>
concept can_push = requires(H& h) { h.push(1); };

TEST(DequeHandles, AreTheOnlyWayToTheOperations) {
  static_assert(!has_public_push<deque<int>>);
  static_assert(!has_public_pop<deque<int>>);
  static_assert(!has_public_steal<deque<int>>);
  static_assert(!can_steal<fj::deque_owner<int>>);
  static_assert(!can_push<fj::deque_thief<int>>);
  static_assert(!std::is_default_constructible_v<fj::deque_owner<int>>);
  static_assert(!std::is_default_constructible_v<fj::deque_thief<int>>);
  static_assert(!std::is_copy_constructible_v<deque<int>>);
  static_assert(!std::is_move_constructible_v<deque<int>>);
  SUCCEED();
}

TEST(DequeHandles, AreTriviallyCopyablePointers) {
  static_assert(std::is_trivially_copyable_v<fj::deque_owner<int>>);
  static_assert(std::is_trivially_copyable_v<fj::deque_thief<int>>);
  static_assert(sizeof(fj::deque_owner<int>) == sizeof(void*));
  static_assert(sizeof(fj::deque_thief<int>) == sizeof(void*));
  deque<int> d(8);
  auto owner = d.owner();
  auto copy = owner;
  owner.push(5);
  EXPECT_EQ(copy.pop(), std::optional<int>(5));
}

struct two_ints {
  int a;
  int b;
};
struct not_trivially_copyable {
  not_trivially_copyable(const not_trivially_copyable&) {}
};
struct too_big {
  char bytes[64];
};

TEST(DequeElement, AcceptsOnlyTriviallyCopyableLockFreeTypes) {
  static_assert(fj::deque_element<int>);
  static_assert(fj::deque_element<void*>);
  static_assert(fj::deque_element<two_ints>);
  static_assert(!fj::deque_element<not_trivially_copyable>);
  static_assert(!fj::deque_element<too_big>);
  SUCCEED();
}

TEST(DequeElement, StructValuesRoundTrip) {
  deque<two_ints> d(2);
  auto owner = d.owner();
  owner.push({1, 2});
  owner.push({3, 4});
  owner.push({5, 6});
  const auto stolen = d.thief().steal();
  ASSERT_TRUE(stolen);
  EXPECT_EQ(stolen.value.a, 1);
  EXPECT_EQ(stolen.value.b, 2);
  const auto popped = owner.pop();
  ASSERT_TRUE(popped.has_value());
  EXPECT_EQ(popped->a, 5);
  EXPECT_EQ(popped->b, 6);
}

}  // namespace
