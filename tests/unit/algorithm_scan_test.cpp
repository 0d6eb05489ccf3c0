// inclusive_scan and exclusive_scan against their std:: counterparts: random inputs of sizes 0, 1, 2, odd,
// prime and large, at 1, 2, 4 and 16 workers, with each partition, with and without init, in place, on
// std::deque iterators, with an operation that does not commute; the chained scan's hand-over from chunk to
// chunk under stress (many small chunks, every worker count, in and out of a task), with exceptions at random
// chunks, and its determinism with a fixed grain.
#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "support/algorithm_test_support.hpp"

namespace {

using namespace fj::test::algo;

// While alive, scan participants leave a chunk whose carry is late at once (after a few pauses) instead of
// waiting for it, as a preempted participant's successors do: the hand-over path runs all the time.
class leave_at_once {
 public:
  leave_at_once() : saved_(fj::detail::algo::scan_wait_limit_ns.exchange(0)) {}
  ~leave_at_once() { fj::detail::algo::scan_wait_limit_ns.store(saved_); }
  leave_at_once(const leave_at_once&) = delete;
  leave_at_once& operator=(const leave_at_once&) = delete;

 private:
  std::uint64_t saved_;
};

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

// Many small chunks (grain 1 to 64) make the participants hand carries to each other thousands of times per
// call, every other round leaving their chunks to the carry's publisher at once; the non-commutative maps
// catch a carry applied out of order, the sums a lost or doubled chunk.
TEST(AlgorithmScan, TheChunkChainHandsEveryCarryOnInOrder) {
  int const rounds = static_cast<int>(fj::test::scaled(12, 2));
  on_every_pool([&](auto& pool) {
    for (int round = 0; round < rounds; ++round) {
      std::optional<leave_at_once> leave;
      if (round % 2 == 1) leave.emplace();
      std::size_t const n = 2 + random_index(large());
      for (fj::partition p :
           {fj::grain(1 + random_index(64)), fj::fixed_grain(1 + random_index(64)), fj::partition{}}) {
        auto v = random_values(n);
        std::vector<std::int64_t> out(n);
        std::vector<std::int64_t> expected(n);
        fj::exclusive_scan(pool, v.begin(), v.end(), out.begin(), std::int64_t{11}, std::plus<>{}, p);
        std::exclusive_scan(v.begin(), v.end(), expected.begin(), std::int64_t{11});
        ASSERT_EQ(out, expected) << "n=" << n << " round=" << round;
        auto maps = random_affine(n);
        std::vector<affine> serial(n);
        std::inclusive_scan(maps.begin(), maps.end(), serial.begin(), compose{});
        fj::inclusive_scan(pool, maps.begin(), maps.end(), maps.begin(), compose{}, p);  // in place
        ASSERT_EQ(maps, serial) << "n=" << n << " round=" << round;
        // The same inside a task: the participants start from a worker.
        auto body = [&]() -> fj::task<bool> {
          std::vector<std::int64_t> t(n);
          co_await fj::call(fj::co::inclusive_scan, v.begin(), v.end(), t.begin(), std::plus<>{}, p);
          co_await fj::join;
          std::inclusive_scan(v.begin(), v.end(), expected.begin());
          co_return t == expected;
        };
        ASSERT_TRUE(fj::sync_wait(pool, body)) << "n=" << n << " round=" << round;
      }
    }
  });
}

// An exception in one chunk must end the participants waiting for its carry (and theirs), not leave them
// spinning; the first exception reaches the caller and the pool goes on working.
TEST(AlgorithmScan, AnExceptionInOneChunkEndsEveryWaitingParticipant) {
  int const rounds = static_cast<int>(fj::test::scaled(16, 2));
  std::int64_t const bad = 77'777;
  on_every_pool([&](auto& pool) {
    for (int round = 0; round < rounds; ++round) {
      std::optional<leave_at_once> leave;
      if (round % 2 == 1) leave.emplace();
      std::size_t const n = 4099 + random_index(large());
      auto v = random_values(n);
      std::size_t const k = random_index(n);
      v[k] = bad;
      auto throwing_plus = [&](std::int64_t a, std::int64_t b) {
        if (a == bad || b == bad) throw element_error(k);
        return a + b;
      };
      std::vector<std::int64_t> out(n);
      for (fj::partition p : {fj::grain(1 + random_index(32)), fj::fixed_grain(64), fj::partition{}}) {
        EXPECT_THROW(fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), throwing_plus, p),
                     element_error);
        EXPECT_THROW(
            fj::exclusive_scan(pool, v.begin(), v.end(), out.begin(), std::int64_t{0}, throwing_plus, p),
            element_error);
      }
      v[k] = 1;
      fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), std::plus<>{}, fj::grain(16));
      std::vector<std::int64_t> expected(n);
      std::inclusive_scan(v.begin(), v.end(), expected.begin());
      ASSERT_EQ(out, expected) << "the scan after an exception, n=" << n;
    }
  });
}

// With a fixed grain the carries are combined chunk after chunk whoever runs them: a floating-point scan
// gives bitwise the same output at every worker count and on every run.
TEST(AlgorithmScan, FixedGrainScanIsBitwiseTheSameAtEveryWorkerCount) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(large());
  for (auto& x : v) x = d(rng()) * std::pow(10.0, static_cast<int>(random_index(12)));
  std::vector<double> first(v.size());
  fj::inclusive_scan(all_pools().one, v.begin(), v.end(), first.begin(), std::plus<>{}, fj::fixed_grain(64));
  for (int run = 0; run < 3; ++run) {
    on_every_pool([&](auto& pool) {
      std::vector<double> out(v.size());
      fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), std::plus<>{}, fj::fixed_grain(64));
      for (std::size_t i = 0; i < v.size(); ++i) {
        ASSERT_EQ(std::bit_cast<std::uint64_t>(out[i]), std::bit_cast<std::uint64_t>(first[i])) << "i=" << i;
      }
    });
  }
}

}  // namespace
