#pragma once

#include <cmath>
#include <string>

#include "registry.hpp"
#include "verify.hpp"

// Adaptive trapezoid integration of f(x) = (x^2 + 1) x over [0, n] (libfork paper Table I: n = 1e4,
// epsilon = 1e-9). An interval is halved until halving changes its area by less than epsilon, so the
// recursion is fine-grained and deepest where f grows fastest.
namespace fjb::integrate {

struct problem {
  double upper;
  double epsilon;
};

[[nodiscard]] constexpr problem problem_at(scale s) noexcept {
  return {by_scale(s, 1.0e2, 3.0e2, 1.0e4), 1.0e-9};
}

[[nodiscard]] constexpr double f(double x) noexcept { return (x * x + 1.0) * x; }

// The antiderivative x^4/4 + x^2/2 evaluated over [0, n].
[[nodiscard]] constexpr double exact_integral(double n) noexcept { return n * n * n * n / 4.0 + n * n / 2.0; }

// The two halves' area, if it is close enough to the whole's; both versions test exactly this way.
[[nodiscard]] constexpr bool converged(double halves, double whole, double epsilon) noexcept {
  return halves - whole < epsilon && whole - halves < epsilon;
}

inline void verify(const problem& p, double computed) {
  // Each accepted interval is within epsilon of its refinement; the trapezoid error left is far smaller
  // than this relative tolerance.
  expect_close("integral of (x^2+1)x over [0," + std::to_string(p.upper) + "]", computed,
               exact_integral(p.upper), 1e-9);
}

}  // namespace fjb::integrate
