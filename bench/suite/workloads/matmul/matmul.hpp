#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "registry.hpp"
#include "verify.hpp"

// C = A B for square n x n matrices by divide and conquer over quadrants (libfork paper Table I:
// n = 8192): eight half-size products in two rounds of four, since the two products that add into the
// same quadrant of C must not run at once.
namespace fjb::matmul {

// Below this order a block is multiplied by plain loops.
inline constexpr std::size_t leaf_order = 64;

// N is n, the matrices' order: a power of two, so that quadrants halve evenly down to the leaves.
[[nodiscard]] constexpr std::int64_t default_order(scale s) noexcept {
  return by_scale<std::int64_t>(s, 512, 1024, 8192);
}
inline constexpr size_parameter problem_size{
    "n of the n x n matrices", default_order, leaf_order, 16'384, 1, true};

[[nodiscard]] constexpr std::size_t order(const run_request& request) noexcept {
  return static_cast<std::size_t>(request.n);
}

// A square block inside a row-major matrix whose rows are `stride` elements apart.
struct block {
  float* data;
  std::size_t stride;

  [[nodiscard]] block quadrant(std::size_t row, std::size_t column, std::size_t half) const noexcept {
    return {data + row * half * stride + column * half, stride};
  }
};

// C += A B on blocks of order n, cache-friendly i-k-j order so the inner loop vectorises. Out of line on
// purpose: every version calls the same compiled kernel, whatever the caller (a coroutine frame holding
// the operands can keep a compiler from vectorising a kernel inlined into it).
void multiply_add_leaf(block c, block a, block b, std::size_t n) noexcept;

// A and B with small integer entries, so every product is exact in float and checkable exactly.
struct operands {
  std::size_t n;
  std::vector<float> a;
  std::vector<float> b;
  std::vector<float> c;  // zeroed, already touched, so page faults are not timed
};

[[nodiscard]] operands make_operands(std::size_t n);

// Freivalds' check with exact integer arithmetic: C x == A (B x) for two pseudo-random vectors x.
void verify(const operands& m);

// The OpenMP and TBB versions differ only in their recursion and measure it the same way on their team (an
// omp_team or a tbb_team: built with the worker count, `time(body)` runs the body on the team).
template <class Team, void (*MultiplyAdd)(block c, block a, block b, std::size_t n)>
run_result run_on_team(const run_request& request) {
  operands m = make_operands(order(request));
  Team team(request.workers);
  const double seconds =
      team.time([&] { MultiplyAdd({m.c.data(), m.n}, {m.a.data(), m.n}, {m.b.data(), m.n}, m.n); });
  verify(m);
  return {seconds};
}

}  // namespace fjb::matmul
