#include "heat.hpp"

namespace fjb::heat {

grid initial_grid(const problem& p) {
  grid g{p.rows, p.columns, std::vector<double>(p.rows * p.columns, 0.0), {}};
  // A hot left edge and a warm square in the middle.
  for (std::size_t r = 0; r < p.rows; ++r) {
    g.now[r * p.columns] = 100.0;
  }
  for (std::size_t r = p.rows / 3; r < 2 * p.rows / 3; ++r) {
    for (std::size_t c = p.columns / 3; c < 2 * p.columns / 3; ++c) {
      g.now[r * p.columns + c] = 50.0;
    }
  }
  g.next = g.now;
  return g;
}

void verify(const problem& p, const grid& computed) {
  grid expected = initial_grid(p);
  for (int step = 0; step < p.steps; ++step) {
    update_rows(expected, 1, expected.rows - 1);
    finish_step(expected);
  }
  for (std::size_t i = 0; i < expected.now.size(); ++i) {
    // Only differing values are worth a formatted check, but the corruption test hook must reach it.
    if (computed.now[i] != expected.now[i] || corrupt_answers_for_test()) {
      expect_close("heat: temperature at point " + std::to_string(i), computed.now[i], expected.now[i],
                   1e-12);
    }
  }
}

void update_rows(grid& g, std::size_t first, std::size_t last) noexcept {
  constexpr double diffusion = 0.2;
  const std::size_t n = g.columns;
  for (std::size_t r = first; r < last; ++r) {
    const double* up = g.now.data() + (r - 1) * n;
    const double* here = g.now.data() + r * n;
    const double* down = g.now.data() + (r + 1) * n;
    double* out = g.next.data() + r * n;
    for (std::size_t c = 1; c + 1 < n; ++c) {
      out[c] = here[c] + diffusion * (up[c] + down[c] + here[c - 1] + here[c + 1] - 4.0 * here[c]);
    }
  }
}

}  // namespace fjb::heat
