// Exceptions and misuse: exceptions thrown by element functions at random elements reach the caller and
// stop the remaining work, in the forms with a pool and the task forms (fj::co::); a form with a pool called
// on its own worker is a deadlock error; the concrete pool types work as well as their base.
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

// Runs `call` with an element function that throws at element `k`; checks the exception arrives and the
// range still holds every element (for the sorts) or that the algorithm simply stopped.
TEST(AlgorithmMisuse, ExceptionsFromElementFunctionsReachTheCaller) {
  on_every_pool([](auto& pool) {
    for (std::size_t n : {std::size_t{1}, std::size_t{1009}, large()}) {
      for (fj::partition p : partitions()) {
        auto v = random_values(n);
        std::size_t const k = random_index(n);
        std::int64_t const bad = 77'777;
        v[k] = bad;
        auto thrower = [&](std::int64_t x) {
          if (x == bad) throw element_error(k);
          return x;
        };
        auto pred = [&](std::int64_t x) { return thrower(x) > 5000; };
        std::vector<std::int64_t> out(n);
        EXPECT_THROW(fj::for_each(pool, v.begin(), v.end(), thrower, p), element_error);
        EXPECT_THROW(fj::for_each_index(
                         pool, std::size_t{0}, n, [&](std::size_t i) { thrower(v[i]); }, p),
                     element_error);
        EXPECT_THROW(fj::transform(pool, v.begin(), v.end(), out.begin(), thrower, p), element_error);
        EXPECT_THROW(
            fj::transform_reduce(pool, v.begin(), v.end(), std::int64_t{0}, std::plus<>{}, thrower, p),
            element_error);
        EXPECT_THROW(fj::count_if(pool, v.begin(), v.end(), pred, p), element_error);
        EXPECT_THROW(fj::find_if(pool, v.begin(), v.end(), pred, p), element_error);
        EXPECT_THROW(fj::any_of(pool, v.begin(), v.end(), pred, p), element_error);
        auto throwing_plus = [&](std::int64_t a, std::int64_t b) {
          if (a == bad || b == bad) throw element_error(k);
          return a + b;
        };
        if (n > 1) {
          EXPECT_THROW(fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), throwing_plus, p),
                       element_error);
          EXPECT_THROW(
              fj::exclusive_scan(pool, v.begin(), v.end(), out.begin(), std::int64_t{0}, throwing_plus, p),
              element_error);
          auto throwing_less = [&](std::int64_t a, std::int64_t b) {
            if (a == bad || b == bad) throw element_error(k);
            return a < b;
          };
          auto sorted_input = v;
          std::sort(sorted_input.begin(), sorted_input.end());
          auto a = v;
          EXPECT_THROW(fj::sort(pool, a.begin(), a.end(), throwing_less), element_error);
          std::sort(a.begin(), a.end());
          EXPECT_EQ(a, sorted_input) << "sort lost elements when its comparator threw";
          auto b = v;
          EXPECT_THROW(fj::stable_sort(pool, b.begin(), b.end(), throwing_less), element_error);
        }
      }
    }
    // The pool still works afterwards.
    std::vector<int> ones(5000, 1);
    EXPECT_EQ(fj::reduce(pool, ones.begin(), ones.end(), 0, std::plus<>{}, fj::grain(10)), 5000);
  });
}

TEST(AlgorithmMisuse, AnExceptionStopsTheRemainingWork) {
  std::size_t const n = large() * 10;
  on_every_pool([&](auto& pool) {
    for (fj::partition p : {fj::grain(64), fj::fixed_grain(64)}) {
      std::atomic<std::size_t> calls{0};
      auto f = [&](std::size_t i) {
        calls.fetch_add(1, std::memory_order_relaxed);
        if (i == 100) throw element_error(i);
      };
      EXPECT_THROW(fj::for_each_index(pool, std::size_t{0}, n, f, p), element_error);
      EXPECT_LT(calls.load(), n / 2) << "the loop went on after the exception";
    }
  });
}

TEST(AlgorithmMisuse, TaskFormsRethrowAtTheirCallAndUseNoPartialResult) {
  on_every_pool([](auto& pool) {
    for (fj::partition p : partitions()) {
      auto v = random_values(large());
      std::size_t const k = random_index(v.size());
      v[k] = 77'777;
      auto throwing_plus = [k](std::int64_t a, std::int64_t b) {
        if (a == 77'777 || b == 77'777) throw element_error(k);
        return a + b;
      };
      auto body = [&]() -> fj::task<int> {
        int caught = 0;
        std::vector<std::int64_t> out(v.size());
        try {
          co_await fj::call(fj::co::inclusive_scan, v.begin(), v.end(), out.begin(), throwing_plus, p);
          co_await fj::join;
        } catch (const element_error&) {
          ++caught;
        }
        try {
          std::int64_t sum = 0;
          co_await fj::call(&sum, fj::co::reduce, v.begin(), v.end(), std::int64_t{0}, throwing_plus, p);
          co_await fj::join;
        } catch (const element_error&) {
          ++caught;
        }
        co_return caught;
      };
      EXPECT_EQ(fj::sync_wait(pool, body), 2);
    }
  });
}

// Small inputs take the serial gate before any child task: their exceptions still reach the co_await, and a
// following call still runs.
TEST(AlgorithmMisuse, TaskFormsOnSmallInputsRethrowWithoutAChildTask) {
  auto& pool = all_pools().four;
  std::vector<std::int64_t> v(10, 1);
  auto body = [&]() -> fj::task<int> {
    int caught = 0;
    try {
      co_await fj::call(fj::co::for_each, v.begin(), v.end(), [](std::int64_t x) {
        if (x == 1) throw element_error(0);
      });
      co_await fj::join;
    } catch (const element_error&) {
      ++caught;
    }
    try {
      std::int64_t sum = 0;
      co_await fj::call(&sum, fj::co::reduce, v.begin(), v.end(), std::int64_t{0},
                        [](std::int64_t, std::int64_t) -> std::int64_t { throw element_error(0); });
      co_await fj::join;
    } catch (const element_error&) {
      ++caught;
    }
    bool any = false;
    co_await fj::call(&any, fj::co::any_of, v.begin(), v.end(), [](std::int64_t x) { return x == 1; });
    co_return any ? caught : -1;
  };
  EXPECT_EQ(fj::sync_wait(pool, body), 2);
}

TEST(AlgorithmMisuse, ThePoolFormOnItsOwnWorkerIsADeadlockError) {
  auto& pool = all_pools().two;
  std::vector<int> v(10, 1);
  auto body = [&]() -> fj::task<int> {
    int caught = 0;
    try {
      (void)fj::reduce(pool, v.begin(), v.end());
    } catch (const fj::deadlock_error&) {
      ++caught;
    }
    try {
      fj::sort(pool, v.begin(), v.end());
    } catch (const fj::deadlock_error&) {
      ++caught;
    }
    co_return caught;
  };
  EXPECT_EQ(fj::sync_wait(pool, body), 2);
}

// The other tests pass every pool as fj::detail::pool_base& (tests/support/algorithm_test_support.hpp): the
// concrete pool types are schedulers too.
TEST(AlgorithmMisuse, ConcretePoolTypesRunTheAlgorithms) {
  pools& p = all_pools();
  auto v = random_values(large());
  std::int64_t const sum = std::accumulate(v.begin(), v.end(), std::int64_t{0});
  auto sorted = v;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(fj::reduce(p.two, v), sum);
  EXPECT_EQ(fj::reduce(p.four, v.begin(), v.end()), sum);
  auto a = v;
  fj::sort(p.two, a);
  EXPECT_EQ(a, sorted);
  auto b = v;
  fj::sort(p.sixteen, b.begin(), b.end());
  EXPECT_EQ(b, sorted);
}

}  // namespace
