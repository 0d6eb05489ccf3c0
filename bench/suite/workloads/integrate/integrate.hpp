#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "quadrature.hpp"
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

// N is n, the upper end of [0, n]; the number of intervals grows with it.
[[nodiscard]] constexpr std::int64_t default_upper(scale s) noexcept {
  return by_scale<std::int64_t>(s, 100, 300, 10'000);
}
inline constexpr size_parameter problem_size{"n of [0, n]", default_upper, 1, 1'000'000};

[[nodiscard]] constexpr problem problem_at(const run_request& request) noexcept {
  return {static_cast<double>(request.n), 1.0e-9};
}

inline void verify(const problem& p, double computed) {
  // Each accepted interval is within epsilon of its refinement; the trapezoid error left is far smaller
  // than this relative tolerance.
  expect_close("integral of (x^2+1)x over [0," + std::to_string(p.upper) + "]", computed,
               exact_integral(p.upper), 1e-9);
}

// The OpenMP and TBB versions differ only in their recursion and measure it the same way on their team (an
// omp_team or a tbb_team: built with the worker count, `time(body)` runs the body on the team).
template <class Team,
          double (*AreaBetween)(double x1, double y1, double x2, double y2, double area, double epsilon)>
run_result run_on_team(const run_request& request) {
  const problem p = problem_at(request);
  Team team(request.workers);
  double answer = 0;
  const double seconds = team.time([&] { answer = AreaBetween(0, f(0), p.upper, f(p.upper), 0, p.epsilon); });
  verify(p, answer);
  return {seconds};
}

}  // namespace fjb::integrate
