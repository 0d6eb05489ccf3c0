// reduce, transform_reduce, count_if, find_if and any_of/all_of/none_of against their std:: counterparts:
// random inputs of sizes 0, 1, 2, odd, prime and large, at 1, 2, 4 and 16 workers, with each partition; an
// operation that does not commute; bitwise-equal floating-point sums with a fixed grain; early exit.
#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "support/algorithm_test_support.hpp"

namespace {

using namespace fj::test::algo;

TEST(AlgorithmReduce, ReduceAndTransformReduceMatchStdAndKeepTheOrder) {
  on_every_pool([](auto& pool) {
    for (std::size_t n : sizes()) {
      for (fj::partition p : partitions()) {
        auto v = random_values(n);
        std::deque<std::int64_t> d(v.begin(), v.end());
        EXPECT_EQ(fj::reduce(pool, d.begin(), d.end(), std::int64_t{7}, std::plus<>{}, p),
                  std::accumulate(v.begin(), v.end(), std::int64_t{7}));
        EXPECT_EQ(fj::reduce(pool, v), std::accumulate(v.begin(), v.end(), std::int64_t{0}));
        auto sq = [](std::int64_t x) { return x * x; };
        EXPECT_EQ(fj::transform_reduce(pool, v.begin(), v.end(), std::int64_t{0}, std::plus<>{}, sq, p),
                  std::transform_reduce(v.begin(), v.end(), std::int64_t{0}, std::plus<>{}, sq));
        auto maps = random_affine(n);
        affine const serial = std::accumulate(maps.begin(), maps.end(), affine{}, compose{});
        EXPECT_EQ(fj::reduce(pool, maps.begin(), maps.end(), affine{}, compose{}, p), serial) << "n=" << n;
      }
    }
  });
}

TEST(AlgorithmReduce, FixedGrainReduceIsBitwiseTheSameAtEveryWorkerCount) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(large());
  for (auto& x : v) x = d(rng()) * std::pow(10.0, static_cast<int>(random_index(12)));
  double const first =
      fj::reduce(all_pools().one, v.begin(), v.end(), 0.0, std::plus<>{}, fj::fixed_grain(64));
  for (int run = 0; run < 3; ++run) {
    on_every_pool([&](auto& pool) {
      double const r = fj::reduce(pool, v.begin(), v.end(), 0.0, std::plus<>{}, fj::fixed_grain(64));
      EXPECT_EQ(std::bit_cast<std::uint64_t>(r), std::bit_cast<std::uint64_t>(first)) << r << " vs " << first;
    });
  }
}

TEST(AlgorithmReduce, CountIfAndFindIfMatchStd) {
  on_every_pool([](auto& pool) {
    for (std::size_t n : sizes()) {
      for (fj::partition p : partitions()) {
        auto v = random_values(n);
        std::deque<std::int64_t> d(v.begin(), v.end());
        auto big = [](std::int64_t x) { return x > 990; };
        EXPECT_EQ(fj::count_if(pool, d.begin(), d.end(), big, p), std::count_if(v.begin(), v.end(), big));
        EXPECT_EQ(fj::find_if(pool, v.begin(), v.end(), big, p), std::find_if(v.begin(), v.end(), big));
        EXPECT_EQ(fj::find_if(pool, d, big, p) - d.begin(),
                  std::find_if(v.begin(), v.end(), big) - v.begin());
        auto never = [](std::int64_t x) { return x > 5000; };
        EXPECT_EQ(fj::find_if(pool, v.begin(), v.end(), never, p), v.end());
        EXPECT_EQ(fj::any_of(pool, v.begin(), v.end(), big, p), std::any_of(v.begin(), v.end(), big));
        EXPECT_EQ(fj::all_of(pool, v.begin(), v.end(), big, p), std::all_of(v.begin(), v.end(), big));
        EXPECT_EQ(fj::none_of(pool, v.begin(), v.end(), big, p), std::none_of(v.begin(), v.end(), big));
        auto small = [](std::int64_t x) { return x <= 1000; };
        EXPECT_TRUE(fj::all_of(pool, v, small, p));
        EXPECT_FALSE(fj::any_of(pool, v, never, p));
        EXPECT_TRUE(fj::none_of(pool, v, never, p));
        if (n != 0) {
          // One match at a random place: the first one is found.
          std::size_t const k = random_index(n);
          v[k] = 99'999;
          auto target = [](std::int64_t x) { return x == 99'999; };
          EXPECT_EQ(fj::find_if(pool, v.begin(), v.end(), target, p) - v.begin(),
                    static_cast<std::ptrdiff_t>(k));
          EXPECT_TRUE(fj::any_of(pool, v.begin(), v.end(), target, p));
        }
      }
    }
  });
}

TEST(AlgorithmReduce, AnyOfAndFindIfStopEarly) {
  std::size_t const n = large() * 10;
  std::vector<std::int64_t> v(n, 0);
  v[10] = 1;
  v[n / 2] = 1;
  on_every_pool([&](auto& pool) {
    for (fj::partition p : {fj::partition{}, fj::grain(64), fj::fixed_grain(64)}) {
      std::atomic<std::size_t> calls{0};
      auto one = [&](std::int64_t x) {
        calls.fetch_add(1, std::memory_order_relaxed);
        return x == 1;
      };
      EXPECT_TRUE(fj::any_of(pool, v.begin(), v.end(), one, p));
      EXPECT_LT(calls.load(), n / 2) << "any_of examined most of the range";
      calls = 0;
      EXPECT_EQ(fj::find_if(pool, v.begin(), v.end(), one, p) - v.begin(), 10);
      EXPECT_LT(calls.load(), n / 2) << "find_if examined most of the range";
    }
  });
}

}  // namespace
