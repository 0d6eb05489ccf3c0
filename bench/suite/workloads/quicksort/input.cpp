#include <random>

#include "quicksort.hpp"

namespace fjb::quicksort {
namespace {

std::uint64_t fingerprint(const std::vector<int>& values) {
  std::uint64_t sum = 0;
  for (const int value : values) {
    const auto x = static_cast<std::uint64_t>(static_cast<std::uint32_t>(value));
    sum += x * x * 0x9E3779B97F4A7C15ULL + x;
  }
  return sum;
}

}  // namespace

std::vector<int> random_input(std::size_t count) {
  std::mt19937 random(4418);
  std::uniform_int_distribution<int> value(0, 1'000'000'000);
  std::vector<int> values(count);
  for (auto& v : values) {
    v = value(random);
  }
  return values;
}

void verify(const std::vector<int>& sorted) {
  expect_true("quicksort: output is sorted", std::is_sorted(sorted.begin(), sorted.end()));
  expect_equal("quicksort: fingerprint of the values", fingerprint(sorted),
               fingerprint(random_input(sorted.size())));
}

}  // namespace fjb::quicksort
