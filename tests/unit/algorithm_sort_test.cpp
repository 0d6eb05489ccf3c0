// sort and stable_sort against std::sort: random, sorted, reversed and constant inputs of sizes 0, 1, 2, odd,
// prime and large, at 1, 2, 4 and 16 workers, on vectors and std::deque; stability, with and without a
// default constructor.
#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "support/algorithm_test_support.hpp"

namespace {

using namespace fj::test::algo;

TEST(AlgorithmSort, SortAndStableSortMatchStdOnRandomSortedAndEqualInputs) {
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

// The sortedness check runs before every sort, on the pool for long inputs, a block at a time for integers
// in memory with a standard order: a sorted input with a single descent anywhere (the first elements, either
// side of a block boundary, the last element) must still be sorted, on every path, in ordinary code and in
// a task.
TEST(AlgorithmSort, SortedInputsWithOneDescentAreSorted) {
  on_every_pool([](auto& pool) {
    for (std::size_t n : {std::size_t{2}, std::size_t{17}, std::size_t{1009}, std::size_t{5003}, large()}) {
      std::vector<int> sorted(n);
      for (std::size_t i = 0; i < n; ++i) sorted[i] = static_cast<int>(i);
      std::vector<std::size_t> at{1, 2, 15, 16, 17, 528, 529, n / 2, n - 512, n - 1, random_index(n)};
      for (std::size_t p : at) {
        if (p == 0 || p >= n) continue;
        auto input = sorted;
        std::swap(input[p - 1], input[p]);
        auto a = input;
        fj::sort(pool, a);  // std::less<> on int in a vector: the block check
        EXPECT_EQ(a, sorted) << "n=" << n << " p=" << p;
        std::deque<int> d(input.begin(), input.end());
        fj::stable_sort(pool, d.begin(), d.end());  // not contiguous: std::is_sorted
        EXPECT_TRUE(std::equal(d.begin(), d.end(), sorted.begin(), sorted.end())) << "n=" << n << " p=" << p;
        auto b = input;
        fj::stable_sort(pool, b, [](int x, int y) { return x < y; });  // a lambda: std::is_sorted
        EXPECT_EQ(b, sorted) << "n=" << n << " p=" << p;
        auto c = input;
        bool ok = fj::sync_wait(pool, [&]() -> fj::task<bool> {
          co_await fj::call(fj::co::sort, c.begin(), c.end());
          co_return c == sorted;
        });
        EXPECT_TRUE(ok) << "n=" << n << " p=" << p;
      }
      auto a = sorted;  // and a sorted input stays as it is
      fj::sort(pool, a);
      EXPECT_EQ(a, sorted);
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

TEST(AlgorithmSort, StableSortKeepsOrderWithAndWithoutADefaultConstructor) {
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

}  // namespace
