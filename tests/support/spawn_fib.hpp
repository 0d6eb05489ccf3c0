// fib as a plain function with fj::scope, the example of scope.hpp's comment: the plain-spawn tests'
// workload.
#pragma once

#include <forkjoin/scope.hpp>

namespace fj::test {

// One spawn per inner node and no cutoff: fib(n) spawns fib(n + 1) - 1 children.
inline long spawn_fib(int n) {
  if (n < 2) return n;
  long a = 0;
  fj::scope s;
  s.spawn(&a, spawn_fib, n - 1);
  long const b = spawn_fib(n - 2);
  s.sync();
  return a + b;
}

}  // namespace fj::test
