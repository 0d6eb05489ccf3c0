// for_each, for_each_index and transform against their std:: counterparts: random inputs of sizes 0, 1, 2,
// odd, prime and large, at 1, 2, 4 and 16 workers, with each partition; std::deque iterators (random access,
// not contiguous); index ranges that are empty, reversed or as wide as their type.
#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "support/algorithm_test_support.hpp"

namespace {

using namespace fj::test::algo;

TEST(AlgorithmLoop, ForEachVisitsEveryElementOnceOnVectorsAndDeques) {
  on_every_pool([](auto& pool) {
    for (std::size_t n : sizes()) {
      for (fj::partition p : partitions()) {
        auto v = random_values(n);
        auto expected = v;
        for (auto& x : expected) x = x * 3 + 1;
        fj::for_each(pool, v.begin(), v.end(), [](std::int64_t& x) { x = x * 3 + 1; }, p);
        EXPECT_EQ(v, expected) << "n=" << n;
        std::deque<std::int64_t> d(v.begin(), v.end());
        fj::for_each(pool, d, [](std::int64_t& x) { x -= 1; }, p);
        for (auto& x : expected) x -= 1;
        EXPECT_TRUE(std::equal(d.begin(), d.end(), expected.begin(), expected.end())) << "n=" << n;
      }
    }
  });
}

TEST(AlgorithmLoop, ForEachIndexCoversExactlyTheIndexRange) {
  on_every_pool([](auto& pool) {
    for (std::size_t n : sizes()) {
      for (fj::partition p : partitions()) {
        std::vector<std::atomic<int>> hits(n + 2);
        fj::for_each_index(
            pool, 1, n + 1, [&](std::size_t i) { hits[i].fetch_add(1, std::memory_order_relaxed); }, p);
        EXPECT_EQ(hits[0].load(), 0);
        EXPECT_EQ(hits[n + 1].load(), 0);
        for (std::size_t i = 1; i <= n; ++i) ASSERT_EQ(hits[i].load(), 1) << "i=" << i << " n=" << n;
      }
    }
  });
}

TEST(AlgorithmLoop, ForEachIndexHandlesEmptyReversedAndFullWidthRanges) {
  auto& pool = all_pools().four;
  int calls = 0;
  fj::for_each_index(pool, 5, 5, [&](int) { ++calls; });
  fj::for_each_index(pool, 7, 3, [&](int) { ++calls; });
  EXPECT_EQ(calls, 0);
  // 255 indices of a signed 8-bit type: the length does not fit the type.
  std::vector<std::atomic<int>> seen(256);
  fj::for_each_index(
      pool, std::int8_t{-128}, std::int8_t{127},
      [&](std::int8_t i) { seen[static_cast<std::size_t>(i + 128)].fetch_add(1); }, fj::grain(4));
  for (std::size_t i = 0; i < 255; ++i) ASSERT_EQ(seen[i].load(), 1) << i;
  EXPECT_EQ(seen[255].load(), 0);
  // The top of an unsigned range.
  std::atomic<std::uint64_t> sum{0};
  fj::for_each_index(
      pool, UINT_MAX - 9U, UINT_MAX, [&](unsigned i) { sum.fetch_add(UINT_MAX - i); }, fj::grain(1));
  EXPECT_EQ(sum.load(), 45U);  // 9 + 8 + ... + 1
}

TEST(AlgorithmLoop, TransformMatchesStdTransformUnaryAndBinary) {
  on_every_pool([](auto& pool) {
    for (std::size_t n : sizes()) {
      for (fj::partition p : partitions()) {
        auto a = random_values(n);
        auto b = random_values(n);
        std::vector<std::int64_t> out(n);
        std::vector<std::int64_t> expected(n);
        auto square = [](std::int64_t x) { return x * x; };
        EXPECT_EQ(fj::transform(pool, a.begin(), a.end(), out.begin(), square, p), out.end());
        std::transform(a.begin(), a.end(), expected.begin(), square);
        EXPECT_EQ(out, expected);
        std::deque<std::int64_t> dout(n);
        fj::transform(pool, a.begin(), a.end(), b.begin(), dout.begin(), std::minus<>{}, p);
        std::transform(a.begin(), a.end(), b.begin(), expected.begin(), std::minus<>{});
        EXPECT_TRUE(std::equal(dout.begin(), dout.end(), expected.begin(), expected.end())) << "n=" << n;
      }
    }
  });
}

}  // namespace
