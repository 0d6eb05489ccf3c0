#pragma once
// The arithmetic of the integrate workload, shared by fj-bench's versions (integrate.hpp) and by fj-overhead
// (bench/overhead/fork_overhead.cpp): no dependency on the suite, so that fj-overhead's source compiles alone
// with this directory on the include path (scripts/ab-layouts.sh builds it that way).
namespace fjb::integrate {

[[nodiscard]] constexpr double f(double x) noexcept { return (x * x + 1.0) * x; }

// The antiderivative x^4/4 + x^2/2 evaluated over [0, n].
[[nodiscard]] constexpr double exact_integral(double n) noexcept { return n * n * n * n / 4.0 + n * n / 2.0; }

// An interval [x1, x2] cut at its midpoint x0, and the trapezoid areas of its two halves.
struct halves {
  double x0;
  double y0;  // f(x0)
  double left;
  double right;
};

// The step every version takes before deciding whether to recurse; y1 = f(x1) and y2 = f(x2).
[[nodiscard]] constexpr halves halve(double x1, double y1, double x2, double y2) noexcept {
  const double half = (x2 - x1) / 2;
  const double x0 = x1 + half;
  const double y0 = f(x0);
  return {x0, y0, (y1 + y0) / 2 * half, (y0 + y2) / 2 * half};
}

// The two halves' area, if it is close enough to the whole's; both versions test exactly this way.
[[nodiscard]] constexpr bool converged(double halves, double whole, double epsilon) noexcept {
  return halves - whole < epsilon && whole - halves < epsilon;
}

}  // namespace fjb::integrate
