// inclusive_scan and exclusive_scan against their std:: counterparts: random inputs of sizes 0, 1, 2, odd,
// prime and large, at 1, 2, 4 and 16 workers, with each partition, with and without init, in place, on
// std::deque iterators, with an operation that does not commute. The chained scan (scan.hpp): random sizes at
// 1-16 workers, string concatenation (associative, not commutative), the same bits for a double scan with
// fj::fixed_grain at every worker count and on every run, exceptions thrown at random elements, and a slow
// throw in a chunk that the later chunks wait behind (tests/stress/scan_chain_stress_test.cpp does more).
#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "support/algorithm_test_support.hpp"

namespace {

using namespace fj::test::algo;

TEST(AlgorithmScan, ScansMatchStdWithAndWithoutInitAndInPlace) {
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

// Pools of worker counts the shared ones (1, 2, 4, 16) leave out.
struct odd_pools {
  fj::lazy_pool three{3};
  fj::lazy_pool seven{7};
};
odd_pools& extra_pools() {
  static odd_pools p;
  return p;
}

template <class Fn>
void on_pools_1_to_16(Fn fn) {
  on_every_pool(fn);
  fn(static_cast<fj::detail::pool_base&>(extra_pools().three));
  fn(static_cast<fj::detail::pool_base&>(extra_pools().seven));
}

std::size_t random_size(std::size_t most) {
  return std::uniform_int_distribution<std::size_t>(0, most)(rng());
}

// A 64-bit integer type other than std::int64_t: an output the chain cannot read back as the accumulator.
using other_int64 = std::conditional_t<std::is_same_v<std::int64_t, long long>, long, long long>;
static_assert(sizeof(other_int64) == sizeof(std::int64_t));

TEST(AlgorithmScan, ChainedScanMatchesStdAtRandomSizesAndWorkerCounts) {
  on_pools_1_to_16([](auto& pool) {
    for (int round = 0; round < 6; ++round) {
      std::size_t const n = random_size(fj::test::scaled(300'000, 40'000));
      for (fj::partition p : {fj::partition{}, fj::grain(64), fj::fixed_grain(1 + random_size(5000))}) {
        auto v = random_values(n);
        std::vector<std::int64_t> expected(n);
        std::inclusive_scan(v.begin(), v.end(), expected.begin());
        std::vector<std::int64_t> out(n);
        fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), std::plus<>{}, p);
        EXPECT_EQ(out, expected) << "n=" << n;
        std::vector<other_int64> other(n);  // folded first, scanned after
        fj::inclusive_scan(pool, v.begin(), v.end(), other.begin(), std::plus<>{}, p);
        EXPECT_TRUE(std::equal(other.begin(), other.end(), expected.begin(), expected.end())) << "n=" << n;
        std::exclusive_scan(v.begin(), v.end(), expected.begin(), std::int64_t{7});
        fj::exclusive_scan(pool, v.begin(), v.end(), other.begin(), std::int64_t{7}, std::plus<>{}, p);
        EXPECT_TRUE(std::equal(other.begin(), other.end(), expected.begin(), expected.end())) << "n=" << n;
        fj::exclusive_scan(pool, v.begin(), v.end(), v.begin(), std::int64_t{7}, std::plus<>{},
                           p);  // in place
        EXPECT_EQ(v, expected) << "n=" << n;
      }
    }
  });
}

TEST(AlgorithmScan, ChainedScanKeepsTheOrderOfStringConcatenation) {
  on_pools_1_to_16([](auto& pool) {
    for (int round = 0; round < 3; ++round) {
      std::size_t const n = 2 + random_size(3000);
      std::vector<std::string> v(n);
      for (auto& x : v) x = std::string(1, static_cast<char>('a' + random_index(26)));
      for (fj::partition p : {fj::grain(16), fj::fixed_grain(1 + random_size(300))}) {
        std::vector<std::string> expected(n);
        std::inclusive_scan(v.begin(), v.end(), expected.begin());
        std::vector<std::string> out(n);
        fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), std::plus<>{}, p);
        EXPECT_EQ(out, expected) << "n=" << n;
        std::exclusive_scan(v.begin(), v.end(), expected.begin(), std::string(">"));
        std::vector<std::string> in_place = v;
        fj::exclusive_scan(pool, in_place.begin(), in_place.end(), in_place.begin(), std::string(">"),
                           std::plus<>{}, p);
        EXPECT_EQ(in_place, expected) << "n=" << n;
      }
    }
  });
}

// The scan with chunks of `chunk` elements as the chain computes it: the carry into the next chunk is carry +
// (the chunk's own sum, left to right). Folding first (an input that fits in a last-level cache) each chunk
// is scanned from its carry; scanning first (input and output of 32 MiB or more) each chunk is scanned on its
// own and its carry put in front of each output.
template <class V>
std::vector<V> chunked_inclusive_scan(const std::vector<V>& v, std::size_t chunk, bool scan_first) {
  std::vector<V> out(v.size());
  std::optional<V> carry;
  for (std::size_t lo = 0; lo < v.size(); lo += chunk) {
    std::size_t const hi = std::min(v.size(), lo + chunk);
    V own = v[lo];                            // the chunk's prefix on its own
    V from = carry ? *carry + v[lo] : v[lo];  // the chunk scanned from its carry
    out[lo] = scan_first ? (carry ? *carry + own : own) : from;
    for (std::size_t i = lo + 1; i < hi; ++i) {
      own = own + v[i];
      from = from + v[i];
      out[i] = scan_first ? (carry ? *carry + own : own) : from;
    }
    carry = carry ? *carry + own : own;
  }
  return out;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(AlgorithmScan, FixedGrainDoubleScanHasTheSameBitsAtEveryWorkerCountAndRun) {
  std::size_t const n = fj::test::scaled(400'003, 50'021);
  std::vector<double> v(n);
  std::uniform_real_distribution<double> d(-1e6, 1e6);
  for (auto& x : v) x = d(rng()) * (random_index(2) == 0 ? 1e-9 : 1.0);  // mixed magnitudes: rounding shows
  for (std::size_t chunk : {std::size_t{1000}, std::size_t{4096}}) {
    auto const expected = chunked_inclusive_scan(v, chunk, false);
    on_pools_1_to_16([&](auto& pool) {
      for (int run = 0; run < 4; ++run) {
        std::vector<double> out(n);
        fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), std::plus<>{}, fj::fixed_grain(chunk));
        EXPECT_TRUE(same_bits(out, expected)) << "chunk=" << chunk << " run=" << run;
        std::vector<double> in_place = v;
        fj::inclusive_scan(pool, in_place.begin(), in_place.end(), in_place.begin(), std::plus<>{},
                           fj::fixed_grain(chunk));
        EXPECT_TRUE(same_bits(in_place, expected)) << "in place, chunk=" << chunk << " run=" << run;
      }
    });
  }
}

TEST(AlgorithmScan, ChainedScanPassesOnAnExceptionFromARandomElement) {
  constexpr std::int64_t poison = std::numeric_limits<std::int64_t>::min();
  auto const throwing_plus = [](std::int64_t a, std::int64_t b) {
    if (a == poison || b == poison) throw element_error(0);
    return a + b;
  };
  on_pools_1_to_16([&](auto& pool) {
    for (int round = 0; round < 4; ++round) {
      std::size_t const n = 3000 + random_size(fj::test::scaled(200'000, 30'000));
      for (fj::partition p : {fj::partition{}, fj::grain(32), fj::fixed_grain(1 + random_size(4000))}) {
        auto v = random_values(n);
        v[random_index(n)] = poison;
        std::vector<std::int64_t> out(n);
        EXPECT_THROW(
            fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), throwing_plus, std::int64_t{1}, p),
            element_error);
        EXPECT_THROW(
            fj::exclusive_scan(pool, v.begin(), v.end(), v.begin(), std::int64_t{1}, throwing_plus, p),
            element_error);
      }
    }
    auto v = random_values(100'000);
    std::vector<std::int64_t> out(v.size());
    std::vector<std::int64_t> expected(v.size());
    fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), std::plus<>{}, fj::grain(64));  // still usable
    std::inclusive_scan(v.begin(), v.end(), expected.begin());
    EXPECT_EQ(out, expected);
  });
}

// An element of 1 KiB (128 lanes, added lane by lane): a scan of 16,384 of them has the 32 MiB of input and
// output from which the chain's steps scan first and add their carries after (scan.hpp's scan_first_bytes),
// at a length the tests can afford.
template <class V>
struct wide {
  std::array<V, 128> x{};
  friend wide operator+(const wide& a, const wide& b) {
    wide r;
    for (std::size_t i = 0; i < r.x.size(); ++i) r.x[i] = a.x[i] + b.x[i];
    return r;
  }
  friend bool operator==(const wide&, const wide&) = default;
};

std::size_t scan_first_length() {
  return fj::detail::algo::scan_first_bytes / (2 * sizeof(wide<std::int64_t>)) + random_size(2000);
}

std::vector<wide<std::int64_t>> random_wide(std::size_t n) {
  std::vector<wide<std::int64_t>> v(n);
  for (auto& w : v) {
    for (auto& x : w.x) x = static_cast<std::int64_t>(random_index(2001)) - 1000;
  }
  return v;
}

TEST(AlgorithmScan, LargeScansThatScanFirstMatchStd) {
  static_assert(sizeof(wide<std::int64_t>) == 1024);
  std::size_t round = 0;
  on_pools_1_to_16([&round](auto& pool) {
    std::size_t const n = scan_first_length();
    auto v = random_wide(n);
    // One partition per pool, in turn: each call moves 32 MiB, which the sanitizers make slow.
    std::array<fj::partition, 3> const partitions{fj::partition{}, fj::grain(64),
                                                  fj::fixed_grain(1 + random_size(3000))};
    fj::partition const p = partitions[round++ % partitions.size()];
    std::vector<wide<std::int64_t>> expected(n);
    std::vector<wide<std::int64_t>> out(n);
    std::inclusive_scan(v.begin(), v.end(), expected.begin());
    fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), std::plus<>{}, p);
    EXPECT_TRUE(out == expected) << "n=" << n;
    wide<std::int64_t> init;
    init.x.fill(5);
    std::exclusive_scan(v.begin(), v.end(), expected.begin(), init);
    std::vector<wide<std::int64_t>> in_place = v;
    fj::exclusive_scan(pool, in_place.begin(), in_place.end(), in_place.begin(), init, std::plus<>{}, p);
    EXPECT_TRUE(in_place == expected) << "n=" << n;
  });
}

TEST(AlgorithmScan, LargeFixedGrainScansThatScanFirstHaveTheSameBitsAtEveryWorkerCount) {
  std::size_t const n = scan_first_length();
  std::vector<wide<double>> v(n);
  std::uniform_real_distribution<double> d(-1e6, 1e6);
  for (auto& w : v) {
    for (auto& x : w.x) x = d(rng()) * (random_index(2) == 0 ? 1e-9 : 1.0);
  }
  std::size_t const chunk = 1000;
  auto const expected = chunked_inclusive_scan(v, chunk, true);
  auto const bits = [](const std::vector<wide<double>>& a, const std::vector<wide<double>>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(wide<double>)) == 0;
  };
  on_pools_1_to_16([&](auto& pool) {
    for (int run = 0; run < 2; ++run) {
      std::vector<wide<double>> out(n);
      fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), std::plus<>{}, fj::fixed_grain(chunk));
      EXPECT_TRUE(bits(out, expected)) << "run=" << run;
    }
  });
}

// The element `at` throws after a pause, so that the threads that took later chunks are waiting for its
// carry: they must stop, in the first pass (before the carry goes on) and in the second (after). Everything
// before it is 0, so it is also the prefix at its place within its chunk (what the second pass of a step
// scanned first sees), whichever chunk it falls in; only the second pass has the init, and so a total of at
// least `big`, in its left operand. `lane` reads the value an element stands for.
template <class V, class Lane>
void expect_throws_behind_a_slow_element(std::vector<V> v, std::size_t at, Lane lane) {
  constexpr std::int64_t poison = 999'999;
  constexpr std::int64_t big = std::int64_t{1} << 40;
  std::fill(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(at), V{});
  lane(v[at]) = poison;
  V init{};
  lane(init) = big;
  for (bool in_second_pass : {false, true}) {
    auto const slow_throw = [in_second_pass, lane](V a, V b) {
      if (lane(b) == poison && (!in_second_pass || lane(a) >= big / 2)) {
        auto const until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
        while (std::chrono::steady_clock::now() < until) {
        }
        throw element_error(0);
      }
      return a + b;
    };
    on_pools_1_to_16([&](auto& pool) {
      std::vector<V> out(v.size());
      for (fj::partition p : {fj::fixed_grain(1000), fj::grain(1000)}) {
        EXPECT_THROW(fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), slow_throw, init, p),
                     element_error);
      }
    });
  }
}

// Both kinds of step: folded first and scanned after (an input that fits a cache), scanned first and the
// carry added after (32 MiB or more).
TEST(AlgorithmScan, ChainedScanStopsTheChunksWaitingBehindAThrow) {
  expect_throws_behind_a_slow_element(random_values(fj::test::scaled(100'000, 20'000)), 1500,
                                      [](auto& x) -> auto& { return x; });
  expect_throws_behind_a_slow_element(random_wide(scan_first_length()), 1500,
                                      [](auto& w) -> auto& { return w.x[0]; });
}

}  // namespace
