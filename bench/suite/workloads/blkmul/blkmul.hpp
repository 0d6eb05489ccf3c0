#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "registry.hpp"
#include "verify.hpp"

// Block matrix multiplication (seed 003: 4096 x 4096): matrices stored as contiguous square tiles, one task
// per tile of C, each summing the tile products along its row of A and column of B.
namespace fjb::blkmul {

inline constexpr std::size_t tile = 64;

// N is n, the matrices' order: a whole number of tiles.
[[nodiscard]] constexpr std::int64_t default_order(scale s) noexcept {
  return by_scale<std::int64_t>(s, 512, 1024, 4096);
}
inline constexpr size_parameter problem_size{"n of the n x n matrices", default_order, tile, 16'384, tile};

[[nodiscard]] constexpr std::size_t order(const run_request& request) noexcept {
  return static_cast<std::size_t>(request.n);
}

// An n x n matrix of (n / tile)^2 tiles, tile after tile in row-major order of tiles.
struct tiled_matrix {
  std::size_t n;
  std::vector<float> values;

  [[nodiscard]] std::size_t tiles_per_side() const noexcept { return n / tile; }
  [[nodiscard]] float* tile_at(std::size_t row, std::size_t column) noexcept {
    return values.data() + (row * tiles_per_side() + column) * tile * tile;
  }
  [[nodiscard]] const float* tile_at(std::size_t row, std::size_t column) const noexcept {
    return values.data() + (row * tiles_per_side() + column) * tile * tile;
  }
  [[nodiscard]] float element(std::size_t row, std::size_t column) const noexcept {
    return tile_at(row / tile, column / tile)[(row % tile) * tile + column % tile];
  }
};

struct operands {
  tiled_matrix a;
  tiled_matrix b;
  tiled_matrix c;  // zeroed and touched before timing
};

[[nodiscard]] operands make_operands(std::size_t n);

// Computes tile `index` (row-major over tiles) of C = A B. Out of line so that every version runs the same
// compiled kernel (inlined into a coroutine it may not be vectorised).
void compute_tile(operands& m, std::size_t index) noexcept;

[[nodiscard]] inline std::size_t tile_count(const operands& m) noexcept {
  return m.c.tiles_per_side() * m.c.tiles_per_side();
}

// Freivalds' check with exact integer arithmetic, as for matmul.
void verify(const operands& m);

}  // namespace fjb::blkmul
