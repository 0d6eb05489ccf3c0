#pragma once

#include <cstdint>
#include <string>

#include "fibonacci.hpp"
#include "registry.hpp"
#include "verify.hpp"

// Recursive Fibonacci with no cutoff: almost pure fork overhead (libfork paper Table I).
namespace fjb::fib {

// N is n: fib(n) has about 1.6^n tasks.
[[nodiscard]] constexpr std::int64_t default_argument(scale s) noexcept { return by_scale(s, 27, 32, 42); }
inline constexpr size_parameter problem_size{"n of fib(n)", default_argument, 2, 50};

[[nodiscard]] constexpr int argument(const run_request& request) noexcept {
  return static_cast<int>(request.n);
}

inline void verify(int n, long computed) {
  expect_equal("fib(" + std::to_string(n) + ")", computed, fibonacci(n));
}

// The OpenMP and TBB versions differ only in their recursion and measure it the same way on their team (an
// omp_team or a tbb_team: built with the worker count, `time(body)` runs the body on the team).
template <class Team, long (*Fib)(int n)>
run_result run_on_team(const run_request& request) {
  const int n = argument(request);
  Team team(request.workers);
  long answer = 0;
  const double seconds = team.time([&] { answer = Fib(n); });
  verify(n, answer);
  return {seconds};
}

}  // namespace fjb::fib
