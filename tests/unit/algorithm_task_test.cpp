// The task forms (fj::co::) of every algorithm inside a task, and the forms without a pool
// (fj::default_pool()), against their std:: counterparts, at 1, 2, 4 and 16 workers.
#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

#include "support/algorithm_test_support.hpp"

namespace {

using namespace fj::test::algo;

TEST(AlgorithmTask, TaskFormsRunInsideATask) {
  on_every_pool([](auto& pool) {
    for (std::size_t n : sizes()) {
      auto v = random_values(n);
      auto body = [&]() -> fj::task<bool> {
        std::int64_t sum = 0;
        co_await fj::call(&sum, fj::co::reduce, v.begin(), v.end(), std::int64_t{0}, std::plus<>{});
        std::int64_t sq = 0;
        auto square = [](std::int64_t x) { return x * x; };
        co_await fj::call(&sq, fj::co::transform_reduce, v.begin(), v.end(), std::int64_t{0}, std::plus<>{},
                          square, fj::fixed_grain(50));
        std::vector<std::int64_t> out(n);
        co_await fj::call(fj::co::for_each_index, std::size_t{0}, n,
                          [&](std::size_t i) { out[i] = 2 * v[i]; });
        std::vector<std::int64_t> t(n);
        co_await fj::call(fj::co::transform, v.begin(), v.end(), t.begin(),
                          [](std::int64_t x) { return 2 * x; });
        std::vector<std::int64_t> scan(n);
        co_await fj::call(fj::co::inclusive_scan, v.begin(), v.end(), scan.begin(), std::plus<>{},
                          fj::grain(8));
        std::vector<std::int64_t> xscan(n);
        co_await fj::call(fj::co::exclusive_scan, v.begin(), v.end(), xscan.begin(), std::int64_t{1});
        auto big = [](std::int64_t x) { return x > 990; };
        std::ptrdiff_t count = 0;
        co_await fj::call(&count, fj::co::count_if, v.begin(), v.end(), big);
        auto found = v.end();
        co_await fj::call(&found, fj::co::find_if, v.begin(), v.end(), big);
        bool any = false;
        bool all = false;
        bool none = false;
        co_await fj::call(&any, fj::co::any_of, v.begin(), v.end(), big);
        co_await fj::call(&all, fj::co::all_of, v.begin(), v.end(), big);
        co_await fj::call(&none, fj::co::none_of, v.begin(), v.end(), big);
        auto s = v;
        co_await fj::call(fj::co::sort, s.begin(), s.end());
        auto ss = v;
        co_await fj::call(fj::co::stable_sort, ss.begin(), ss.end(), std::greater<>{});
        co_await fj::call(fj::co::for_each, ss.begin(), ss.end(), [](std::int64_t& x) { x = -x; });

        std::vector<std::int64_t> e(n);
        bool ok = sum == std::accumulate(v.begin(), v.end(), std::int64_t{0});
        ok = ok && sq == std::transform_reduce(v.begin(), v.end(), std::int64_t{0}, std::plus<>{}, square);
        std::transform(v.begin(), v.end(), e.begin(), [](std::int64_t x) { return 2 * x; });
        ok = ok && out == e && t == e;
        std::inclusive_scan(v.begin(), v.end(), e.begin());
        ok = ok && scan == e;
        std::exclusive_scan(v.begin(), v.end(), e.begin(), std::int64_t{1});
        ok = ok && xscan == e;
        ok = ok && count == std::count_if(v.begin(), v.end(), big);
        ok = ok && found == std::find_if(v.begin(), v.end(), big);
        ok = ok && any == std::any_of(v.begin(), v.end(), big) &&
             all == std::all_of(v.begin(), v.end(), big) && none == std::none_of(v.begin(), v.end(), big);
        e = v;
        std::sort(e.begin(), e.end());
        ok = ok && s == e;
        std::reverse(e.begin(), e.end());
        for (auto& x : e) x = -x;
        ok = ok && ss == e;
        co_return ok;
      };
      EXPECT_TRUE(fj::sync_wait(pool, body)) << "n=" << n;
    }
  });
}

TEST(AlgorithmTask, FormsWithoutAPoolUseTheDefaultPool) {
  auto v = random_values(large());
  auto expected = v;
  std::sort(expected.begin(), expected.end());
  auto a = v;
  fj::sort(a.begin(), a.end());
  EXPECT_EQ(a, expected);
  auto b = v;
  fj::stable_sort(b);
  EXPECT_EQ(b, expected);
  EXPECT_EQ(fj::reduce(v), std::accumulate(v.begin(), v.end(), std::int64_t{0}));
  EXPECT_EQ(fj::count_if(v, [](std::int64_t x) { return x < 0; }),
            std::count_if(v.begin(), v.end(), [](std::int64_t x) { return x < 0; }));
  std::vector<std::int64_t> out(v.size());
  fj::inclusive_scan(v.begin(), v.end(), out.begin());
  std::vector<std::int64_t> e(v.size());
  std::inclusive_scan(v.begin(), v.end(), e.begin());
  EXPECT_EQ(out, e);
  std::atomic<std::int64_t> sum{0};
  fj::for_each(v, [&](std::int64_t x) { sum.fetch_add(x, std::memory_order_relaxed); });
  EXPECT_EQ(sum.load(), std::accumulate(v.begin(), v.end(), std::int64_t{0}));
}

}  // namespace
