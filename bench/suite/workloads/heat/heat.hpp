#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "registry.hpp"
#include "verify.hpp"

// Heat diffusion on a 2-D grid by Jacobi iteration (seed 004): every step computes each interior point
// from its four neighbours in the previous grid; the rows of a step are updated in parallel and the
// steps follow one another. The boundary is held fixed.
namespace fjb::heat {

struct problem {
  std::size_t rows;
  std::size_t columns;
  int steps;
};

[[nodiscard]] constexpr problem problem_at(scale s) noexcept {
  return by_scale(s, problem{512, 512, 20}, problem{2048, 2048, 25}, problem{4096, 4096, 100});
}

// N is the side of the square grid; the number of steps is the scale's.
[[nodiscard]] constexpr std::int64_t default_side(scale s) noexcept {
  return static_cast<std::int64_t>(problem_at(s).rows);
}
inline constexpr size_parameter problem_size{"side of the square grid", default_side, 64, 32'768};

[[nodiscard]] constexpr problem problem_at(const run_request& request) noexcept {
  const auto side = static_cast<std::size_t>(request.n);
  return {side, side, problem_at(request.size).steps};
}

// Interior rows handed to one task.
inline constexpr std::size_t row_grain = 16;

struct grid {
  std::size_t rows;
  std::size_t columns;
  std::vector<double> now;
  std::vector<double> next;
};

[[nodiscard]] grid initial_grid(const problem& p);

// Computes rows [first, last) of g.next from g.now; 1 <= first, last <= rows - 1. Out of line so that every
// version runs the same compiled kernel (inlined into a coroutine it may not be vectorised).
void update_rows(grid& g, std::size_t first, std::size_t last) noexcept;

// The new grid becomes the current one; boundary values are equal in both, so they stay fixed.
inline void finish_step(grid& g) noexcept { g.now.swap(g.next); }

// Against a serial solution computed here, outside the timed region.
void verify(const problem& p, const grid& computed);

// The OpenMP and TBB versions differ only in their simulation and measure it the same way on their team (an
// omp_team or a tbb_team: built with the worker count, `time(body)` runs the body on the team).
template <class Team, void (*Simulate)(grid& g, int steps)>
run_result run_on_team(const run_request& request) {
  const problem p = problem_at(request);
  grid g = initial_grid(p);
  Team team(request.workers);
  const double seconds = team.time([&] { Simulate(g, p.steps); });
  verify(p, g);
  return {seconds};
}

}  // namespace fjb::heat
