#include <algorithm>
#include <random>

#include "pfor.hpp"

namespace fjb::pfor {
namespace {

std::uint64_t fingerprint_of_sequence(const std::vector<int>& values) {
  std::uint64_t hash = 0;
  for (const int value : values) {
    hash = hash * 0x100000001B3ULL + static_cast<std::uint32_t>(value);
  }
  return hash;
}

}  // namespace

std::vector<int> shared_input(std::size_t elements) {
  std::mt19937 random(1500);
  std::uniform_int_distribution<int> value(0, 1'000'000);
  std::vector<int> values(elements);
  for (auto& v : values) {
    v = value(random);
  }
  return values;
}

std::uint64_t sort_copy(const std::vector<int>& input) {
  std::vector<int> copy = input;
  std::sort(copy.begin(), copy.end());
  return fingerprint_of_sequence(copy);
}

void verify(const std::vector<int>& input, const std::vector<std::uint64_t>& fingerprints) {
  std::vector<int> sorted = input;
  std::sort(sorted.begin(), sorted.end());
  const std::uint64_t expected = fingerprint_of_sequence(sorted);
  for (std::size_t i = 0; i < fingerprints.size(); ++i) {
    expect_equal("pfor: fingerprint of iteration " + std::to_string(i), fingerprints[i], expected);
  }
}

}  // namespace fjb::pfor
