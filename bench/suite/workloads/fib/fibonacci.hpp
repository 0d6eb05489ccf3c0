#pragma once
// fib(n) by iteration: the expected answer of fj-bench's fib (fib.hpp) and of fj-overhead
// (bench/overhead/fork_overhead.cpp), without the suite's dependencies, so that fj-overhead's source compiles
// alone with this directory on the include path (scripts/ab-layouts.sh builds it that way).
namespace fjb::fib {

[[nodiscard]] constexpr long fibonacci(int n) noexcept {
  long previous = 0;
  long current = 1;
  for (int i = 0; i < n; ++i) {
    const long next = previous + current;
    previous = current;
    current = next;
  }
  return previous;
}

}  // namespace fjb::fib
