#include <cstdint>
#include <random>

#include "matmul.hpp"

namespace fjb::matmul {
namespace {

std::vector<std::int64_t> times(const std::vector<float>& matrix, std::size_t n,
                                const std::vector<std::int64_t>& x) {
  std::vector<std::int64_t> y(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      sum += static_cast<std::int64_t>(matrix[i * n + j]) * x[j];
    }
    y[i] = sum;
  }
  return y;
}

}  // namespace

operands make_operands(std::size_t n) {
  operands m{n, std::vector<float>(n * n), std::vector<float>(n * n), std::vector<float>(n * n, 0.0F)};
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      m.a[i * n + j] = static_cast<float>(static_cast<int>((i * 7 + j * 13) % 5) - 2);
      m.b[i * n + j] = static_cast<float>(static_cast<int>((i * 11 + j * 3) % 7) - 3);
    }
  }
  return m;
}

void verify(const operands& m) {
  std::mt19937_64 random(20240229);
  std::uniform_int_distribution<std::int64_t> entry(-4, 4);
  for (int trial = 0; trial < 2; ++trial) {
    std::vector<std::int64_t> x(m.n);
    for (auto& value : x) {
      value = entry(random);
    }
    const auto expected = times(m.a, m.n, times(m.b, m.n, x));
    const auto computed = times(m.c, m.n, x);
    for (std::size_t i = 0; i < m.n; ++i) {
      expect_equal(
          "row " + std::to_string(i) + " of C x (Freivalds check of C = A B, n=" + std::to_string(m.n) + ")",
          computed[i], expected[i]);
    }
  }
}

}  // namespace fjb::matmul
