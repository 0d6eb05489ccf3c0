#include <cstdint>
#include <random>

#include "blkmul.hpp"

namespace fjb::blkmul {
namespace {

std::vector<std::int64_t> times(const tiled_matrix& matrix, const std::vector<std::int64_t>& x) {
  std::vector<std::int64_t> y(matrix.n, 0);
  for (std::size_t i = 0; i < matrix.n; ++i) {
    std::int64_t sum = 0;
    for (std::size_t j = 0; j < matrix.n; ++j) {
      sum += static_cast<std::int64_t>(matrix.element(i, j)) * x[j];
    }
    y[i] = sum;
  }
  return y;
}

tiled_matrix small_integers(std::size_t n, std::size_t row_factor, std::size_t column_factor, int modulus) {
  tiled_matrix m{n, std::vector<float>(n * n)};
  const int centre = modulus / 2;  // integers centred on zero: an integer division on purpose
  for (std::size_t row = 0; row < n; ++row) {
    for (std::size_t column = 0; column < n; ++column) {
      const auto value =
          static_cast<int>((row * row_factor + column * column_factor) % static_cast<std::size_t>(modulus));
      m.tile_at(row / tile, column / tile)[(row % tile) * tile + column % tile] =
          static_cast<float>(value - centre);
    }
  }
  return m;
}

}  // namespace

operands make_operands(std::size_t n) {
  return {small_integers(n, 5, 9, 5), small_integers(n, 3, 11, 7),
          tiled_matrix{n, std::vector<float>(n * n, 0.0F)}};
}

void verify(const operands& m) {
  std::mt19937_64 random(4096);
  std::uniform_int_distribution<std::int64_t> entry(-4, 4);
  for (int trial = 0; trial < 2; ++trial) {
    std::vector<std::int64_t> x(m.c.n);
    for (auto& value : x) {
      value = entry(random);
    }
    const auto expected = times(m.a, times(m.b, x));
    const auto computed = times(m.c, x);
    for (std::size_t i = 0; i < m.c.n; ++i) {
      expect_equal("row " + std::to_string(i) +
                       " of C x (Freivalds check of C = A B, n=" + std::to_string(m.c.n) + ")",
                   computed[i], expected[i]);
    }
  }
}

void compute_tile(operands& m, std::size_t index) noexcept {
  const std::size_t side = m.c.tiles_per_side();
  const std::size_t row = index / side;
  const std::size_t column = index % side;
  float* c = m.c.tile_at(row, column);
  for (std::size_t k = 0; k < side; ++k) {
    const float* a = m.a.tile_at(row, k);
    const float* b = m.b.tile_at(k, column);
    for (std::size_t i = 0; i < tile; ++i) {
      for (std::size_t l = 0; l < tile; ++l) {
        const float a_il = a[i * tile + l];
        for (std::size_t j = 0; j < tile; ++j) {
          c[i * tile + j] += a_il * b[l * tile + j];
        }
      }
    }
  }
}

}  // namespace fjb::blkmul
