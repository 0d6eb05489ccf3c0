// The parallel algorithms of <forkjoin/algorithm.hpp> against their std:: counterparts: random inputs of
// sizes 0, 1, 2, odd, prime and large, at 1, 2, 4 and 16 workers (lazy and busy pools), with each partition;
// exceptions at random elements; early exit; std::deque iterators (random access, not contiguous); move-only
// elements; comparators that are not strict weak orders; the task forms (fj::co::).
#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "support/test_config.hpp"

namespace {

// The pools every test runs on, made once: 1 worker (lazy), 2 (busy), 4 (lazy) and 16 (lazy, oversubscribed).
struct pools {
  fj::lazy_pool one{1};
  fj::busy_pool two{2};
  fj::lazy_pool four{4};
  fj::lazy_pool sixteen{16};
};

pools& all_pools() {
  static pools p;
  return p;
}

template <class Fn>
void on_every_pool(Fn fn) {
  pools& p = all_pools();
  fn(p.one);
  fn(p.two);
  fn(p.four);
  fn(p.sixteen);
}

// The large size shrinks under sanitizers, but stays above the serial cutoffs so that the parallel paths run.
std::size_t large() { return static_cast<std::size_t>(fj::test::scaled(100'003, 20'011)); }

std::vector<std::size_t> sizes() { return {0, 1, 2, 17, 1009, 4099, large()}; }

// Automatic, lazy splitting with a small grain (many splits), and a fixed tree.
std::vector<fj::partition> partitions() { return {fj::partition{}, fj::grain(16), fj::fixed_grain(100)}; }

std::mt19937_64& rng() {
  static std::mt19937_64 r(fj::test::seed());
  return r;
}

std::vector<std::int64_t> random_values(std::size_t n, std::int64_t range = 1000) {
  std::uniform_int_distribution<std::int64_t> d(-range, range);
  std::vector<std::int64_t> v(n);
  for (auto& x : v) x = d(rng());
  return v;
}

std::size_t random_index(std::size_t n) {
  return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng());
}

struct element_error : std::runtime_error {
  explicit element_error(std::size_t i) : std::runtime_error("element"), index(i) {}
  std::size_t index;
};

// An associative, non-commutative operation: composition of affine maps x -> a*x + b (mod 2^64). A result
// equals the serial left fold only if the order of the elements is kept.
struct affine {
  std::uint64_t a = 1;
  std::uint64_t b = 0;
  friend bool operator==(const affine&, const affine&) = default;
};
struct compose {
  affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};
std::vector<affine> random_affine(std::size_t n) {
  std::vector<affine> v(n);
  for (auto& f : v) f = {rng()() | 1, rng()()};
  return v;
}

TEST(Algorithm, ForEachVisitsEveryElementOnceOnVectorsAndDeques) {
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

TEST(Algorithm, ForEachIndexCoversExactlyTheIndexRange) {
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

TEST(Algorithm, ForEachIndexHandlesEmptyReversedAndFullWidthRanges) {
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

TEST(Algorithm, TransformMatchesStdTransformUnaryAndBinary) {
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

TEST(Algorithm, ReduceAndTransformReduceMatchStdAndKeepTheOrder) {
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

TEST(Algorithm, FixedGrainReduceIsBitwiseTheSameAtEveryWorkerCount) {
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

TEST(Algorithm, CountIfAndFindIfMatchStd) {
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

TEST(Algorithm, AnyOfAndFindIfStopEarly) {
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

TEST(Algorithm, ScansMatchStdWithAndWithoutInitAndInPlace) {
  on_every_pool([](auto& pool) {
    for (std::size_t n : sizes()) {
      for (fj::partition p : partitions()) {
        auto v = random_values(n);
        std::vector<std::int64_t> out(n);
        std::vector<std::int64_t> expected(n);
        EXPECT_EQ(fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), std::plus<>{}, p), out.end());
        std::inclusive_scan(v.begin(), v.end(), expected.begin());
        EXPECT_EQ(out, expected) << "n=" << n;
        fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), std::plus<>{}, std::int64_t{5}, p);
        std::inclusive_scan(v.begin(), v.end(), expected.begin(), std::plus<>{}, std::int64_t{5});
        EXPECT_EQ(out, expected) << "n=" << n;
        std::deque<std::int64_t> d(v.begin(), v.end());
        fj::exclusive_scan(pool, d.begin(), d.end(), d.begin(), std::int64_t{-3}, std::plus<>{},
                           p);  // in place
        std::exclusive_scan(v.begin(), v.end(), expected.begin(), std::int64_t{-3});
        EXPECT_TRUE(std::equal(d.begin(), d.end(), expected.begin(), expected.end())) << "n=" << n;
        auto maps = random_affine(n);
        std::vector<affine> scanned(n);
        std::vector<affine> serial(n);
        fj::inclusive_scan(pool, maps.begin(), maps.end(), scanned.begin(), compose{}, p);
        std::inclusive_scan(maps.begin(), maps.end(), serial.begin(), compose{});
        EXPECT_EQ(scanned, serial) << "n=" << n;
        fj::inclusive_scan(pool, maps.begin(), maps.end(), maps.begin(), compose{}, p);  // in place
        EXPECT_EQ(maps, serial) << "n=" << n;
      }
    }
  });
}

TEST(Algorithm, SortAndStableSortMatchStdOnRandomSortedAndEqualInputs) {
  on_every_pool([](auto& pool) {
    for (std::size_t n : sizes()) {
      auto v = random_values(n, 50);  // many duplicates
      std::vector<std::vector<std::int64_t>> inputs{v, v, v, std::vector<std::int64_t>(n, 4)};
      std::sort(inputs[1].begin(), inputs[1].end());
      std::sort(inputs[2].rbegin(), inputs[2].rend());
      for (auto const& input : inputs) {
        auto expected = input;
        std::sort(expected.begin(), expected.end());
        auto a = input;
        fj::sort(pool, a.begin(), a.end());
        EXPECT_EQ(a, expected) << "n=" << n;
        std::deque<std::int64_t> d(input.begin(), input.end());
        fj::sort(pool, d,
                 [](std::int64_t x, std::int64_t y) { return x > y; });  // this file's own serial sort
        EXPECT_TRUE(std::equal(d.begin(), d.end(), expected.rbegin(), expected.rend())) << "n=" << n;
        // Stable: sort (key, position) pairs by key; positions of equal keys stay increasing.
        std::vector<std::pair<std::int64_t, std::size_t>> pairs(n);
        for (std::size_t i = 0; i < n; ++i) pairs[i] = {input[i], i};
        auto stable_expected = pairs;
        auto by_key = [](const auto& x, const auto& y) { return x.first < y.first; };
        // (key, position) in lexicographic order is the stable order by key (std::stable_sort is not used:
        // libstdc++ 12's calls a function clang-19 warns is deprecated).
        std::sort(stable_expected.begin(), stable_expected.end());
        std::deque<std::pair<std::int64_t, std::size_t>> dp(pairs.begin(), pairs.end());
        fj::stable_sort(pool, dp.begin(), dp.end(), by_key);
        EXPECT_TRUE(std::equal(dp.begin(), dp.end(), stable_expected.begin(), stable_expected.end()))
            << "n=" << n;
        fj::stable_sort(pool, pairs, by_key);
        EXPECT_EQ(pairs, stable_expected) << "n=" << n;
      }
    }
  });
}

// The stable sort's buffer is scratch for default-constructible elements (the sort starts from the range) and
// holds the moved-out input for the others (the sort starts from the buffer): both, serial and parallel.
struct no_default {
  explicit no_default(std::int64_t k, std::size_t p) : key(k), position(p) {}
  std::int64_t key;
  std::size_t position;
  bool operator==(const no_default&) const = default;
};

TEST(Algorithm, StableSortKeepsOrderWithAndWithoutADefaultConstructor) {
  static_assert(!std::is_default_constructible_v<no_default>);
  // "kk:position", keys of two digits: compared by their first two characters only, equal keys must keep
  // their positions' order. 5003 elements: above the serial cutoff, so the parallel merge sort runs; 9001:
  // its merges split too.
  auto label = [](std::int64_t key, std::size_t position) {
    return std::to_string(10 + key) + ":" + std::to_string(position);
  };
  auto by_key = [](const std::string& x, const std::string& y) { return x.compare(0, 2, y, 0, 2) < 0; };
  on_every_pool([&](auto& pool) {
    for (std::size_t n : {std::size_t{17}, std::size_t{1009}, std::size_t{5003}, std::size_t{9001}}) {
      auto const keys = random_values(n, 40);
      std::vector<no_default> a;
      a.reserve(n);
      for (std::size_t i = 0; i < n; ++i) a.emplace_back(keys[i] + 40, i);
      auto expected = a;
      std::sort(expected.begin(), expected.end(), [](const no_default& x, const no_default& y) {
        return std::tie(x.key, x.position) < std::tie(y.key, y.position);
      });
      fj::stable_sort(pool, a, [](const no_default& x, const no_default& y) { return x.key < y.key; });
      EXPECT_EQ(a, expected) << "n=" << n;
      if (n > 5003) continue;  // strings: the small and the parallel path are enough
      std::vector<std::string> s;
      std::vector<std::string> expected_s;
      s.reserve(n);
      expected_s.reserve(n);
      for (std::size_t i = 0; i < n; ++i) s.push_back(label(keys[i] + 40, i));
      for (auto const& e : expected) expected_s.push_back(label(e.key, e.position));
      fj::stable_sort(pool, s, by_key);
      EXPECT_EQ(s, expected_s) << "n=" << n;
    }
  });
}

TEST(Algorithm, MoveOnlyElementsSortAndVisit) {
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

TEST(Algorithm, ComparatorsThatAreNotStrictWeakOrdersEndWithAPermutation) {
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

// Runs `call` with an element function that throws at element `k`; checks the exception arrives and the
// range still holds every element (for the sorts) or that the algorithm simply stopped.
TEST(Algorithm, ExceptionsFromElementFunctionsReachTheCaller) {
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

TEST(Algorithm, AnExceptionStopsTheRemainingWork) {
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

TEST(Algorithm, TaskFormsRunInsideATask) {
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

TEST(Algorithm, TaskFormsRethrowAtTheirCallAndUseNoPartialResult) {
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
TEST(Algorithm, TaskFormsOnSmallInputsRethrowWithoutAChildTask) {
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

TEST(Algorithm, ThePoolFormOnItsOwnWorkerIsADeadlockError) {
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

TEST(Algorithm, FormsWithoutAPoolUseTheDefaultPool) {
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
