// The recursive Fibonacci task most tests use as their workload, and the expected values.
#pragma once

#include <forkjoin/forkjoin.hpp>

namespace fj::test {

// fib(n) with a fork and a call per node and no cutoff: the paper's Algorithm 2.
inline fj::task<long> fib(int n) {
  if (n < 2) co_return n;
  long a = 0;
  long b = 0;
  co_await fj::fork(&a, fib, n - 1);
  co_await fj::call(&b, fib, n - 2);
  co_await fj::join;
  co_return a + b;
}

// fib(n) by iteration, for checking answers.
constexpr long fib_value(int n) {
  long a = 0;
  long b = 1;
  for (int i = 0; i < n; ++i) {
    long const next = a + b;
    a = b;
    b = next;
  }
  return a;
}

}  // namespace fj::test
