#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "registry.hpp"
#include "verify.hpp"

// Counts the ways to place n non-attacking queens on an n x n board, one task per safe placement in each
// row (libfork paper Table I: n = 14).
namespace fjb::nqueens {

inline constexpr int largest_board = 16;

// Column of the queen in each row placed so far (unsigned: a column is 0-15); passed by value so every task
// owns its board.
using board = std::array<std::uint8_t, largest_board>;

// Solutions below each column of the current row; a column whose placement is unsafe keeps its zero.
using column_counts = std::array<long, largest_board>;

// The solutions below the current row once every column has stored its count.
[[nodiscard]] inline long total_of(const column_counts& parts, int n) noexcept {
  long total = 0;
  for (int column = 0; column < n; ++column) {
    total += parts[static_cast<std::size_t>(column)];
  }
  return total;
}

// N is n, the board's side.
[[nodiscard]] constexpr std::int64_t default_board_size(scale s) noexcept { return by_scale(s, 11, 12, 14); }
inline constexpr size_parameter problem_size{"n of the n x n board", default_board_size, 4, largest_board};

[[nodiscard]] constexpr int board_size(const run_request& request) noexcept {
  return static_cast<int>(request.n);
}

// Whether the queen just placed in row `row` attacks none of the queens in the rows above it.
[[nodiscard]] constexpr bool safe(const board& queens, int row) noexcept {
  const int column = queens[static_cast<std::size_t>(row)];
  for (int above = 0; above < row; ++above) {
    const int other = queens[static_cast<std::size_t>(above)];
    const int distance = row - above;
    if (other == column || other == column - distance || other == column + distance) {
      return false;
    }
  }
  return true;
}

// OEIS A000170.
[[nodiscard]] constexpr long solutions(int n) noexcept {
  constexpr std::array<long, 17> known{1,   1,   0,    0,     2,     10,     4,       40,      92,
                                       352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};
  return known[static_cast<std::size_t>(n)];
}

inline void verify(int n, long computed) {
  expect_equal(std::to_string(n) + "-queens solutions", computed, solutions(n));
}

// The OpenMP and TBB versions differ only in their recursion and measure it the same way on their team (an
// omp_team or a tbb_team: built with the worker count, `time(body)` runs the body on the team).
template <class Team, long (*Count)(int n, int row, board queens)>
run_result run_on_team(const run_request& request) {
  const int n = board_size(request);
  Team team(request.workers);
  long answer = 0;
  const double seconds = team.time([&] { answer = Count(n, 0, board{}); });
  verify(n, answer);
  return {seconds};
}

}  // namespace fjb::nqueens
