// The sorts with unusual elements and comparators: move-only elements (which for_each and transform_reduce
// visit too), and comparators that are not strict weak orders (random answers, <=), at 1, 2, 4 and 16
// workers.
#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <numeric>
#include <vector>

#include "support/algorithm_test_support.hpp"

namespace {

using namespace fj::test::algo;

TEST(AlgorithmSortMisuse, MoveOnlyElementsSortAndVisit) {
  on_every_pool([](auto& pool) {
    for (std::size_t n : sizes()) {
      auto values = random_values(n, 30);
      auto make = [&] {
        std::vector<std::unique_ptr<std::int64_t>> v;
        v.reserve(n);
        for (auto x : values) v.push_back(std::make_unique<std::int64_t>(x));
        return v;
      };
      auto by_value = [](const auto& a, const auto& b) { return *a < *b; };
      auto expected = values;
      std::sort(expected.begin(), expected.end());
      auto check = [&](const std::vector<std::unique_ptr<std::int64_t>>& v) {
        ASSERT_EQ(v.size(), n);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(*v[i], expected[i]) << "i=" << i;
      };
      auto a = make();
      fj::sort(pool, a.begin(), a.end(), by_value);
      check(a);
      auto b = make();
      fj::stable_sort(pool, b, by_value);
      check(b);
      fj::for_each(pool, b.begin(), b.end(), [](std::unique_ptr<std::int64_t>& x) { *x += 1; });
      EXPECT_EQ(fj::transform_reduce(pool, b.begin(), b.end(), std::int64_t{0}, std::plus<>{},
                                     [](const std::unique_ptr<std::int64_t>& x) { return *x; }),
                std::accumulate(values.begin(), values.end(), static_cast<std::int64_t>(n)));
    }
  });
}

TEST(AlgorithmSortMisuse, ComparatorsThatAreNotStrictWeakOrdersEndWithAPermutation) {
  on_every_pool([](auto& pool) {
    for (std::size_t n : sizes()) {
      auto v = random_values(n, 20);
      auto sorted_input = v;
      std::sort(sorted_input.begin(), sorted_input.end());
      // Answers that depend on a shared counter: inconsistent from one call to the next.
      std::atomic<std::uint64_t> tick{0};
      auto random_order = [&](std::int64_t, std::int64_t) {
        std::uint64_t t = tick.fetch_add(1, std::memory_order_relaxed) * 0x9E3779B97F4A7C15ULL;
        return ((t >> 29) & 1U) != 0;
      };
      auto less_equal = [](std::int64_t x, std::int64_t y) { return x <= y; };
      for (int which = 0; which < 2; ++which) {
        std::deque<std::int64_t> a(v.begin(), v.end());
        std::vector<std::int64_t> b = v;
        if (which == 0) {
          fj::sort(pool, a.begin(), a.end(), random_order);
          fj::stable_sort(pool, b.begin(), b.end(), random_order);
        } else {
          fj::sort(pool, a.begin(), a.end(), less_equal);
          fj::stable_sort(pool, b.begin(), b.end(), less_equal);
        }
        std::vector<std::int64_t> a_sorted(a.begin(), a.end());
        std::sort(a_sorted.begin(), a_sorted.end());
        std::sort(b.begin(), b.end());
        EXPECT_EQ(a_sorted, sorted_input) << "sort lost or duplicated elements, n=" << n;
        EXPECT_EQ(b, sorted_input) << "stable_sort lost or duplicated elements, n=" << n;
      }
    }
  });
}

}  // namespace
