// expect-error: you cannot co_await an fj::task directly: to run another task use co_await fj::call
// Awaiting a task (instead of forking or calling it) is a compile-time error, reported once: the assignment
// of its result adds no error of its own.
#include <forkjoin/forkjoin.hpp>

fj::task<long> fib(int n) {
  if (n < 2) co_return n;
  long a = co_await fib(n - 1);
  co_return a;
}

int main() {}
