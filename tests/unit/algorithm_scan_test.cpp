// inclusive_scan and exclusive_scan against their std:: counterparts: random inputs of sizes 0, 1, 2, odd,
// prime and large, at 1, 2, 4 and 16 workers, with each partition, with and without init, in place, on
// std::deque iterators, with an operation that does not commute.
#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <numeric>
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

}  // namespace
