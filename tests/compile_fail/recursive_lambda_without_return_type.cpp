// expect-error: (cannot be used in a function with a deduced return type|coroutine_traits<auto)
// A coroutine lambda needs `-> fj::task<T>`: without it its return type is deduced, which a coroutine cannot
// have. The compiler reports it in the lambda's body before any library code can check (docs/compilers.md).
#include <forkjoin/forkjoin.hpp>

int main() {
  auto fib = fj::recursive([](auto self, int n) {
    if (n < 2) co_return long{n};
    long a = 0;
    long b = 0;
    co_await fj::fork(&a, self, n - 1);
    co_await fj::call(&b, self, n - 2);
    co_await fj::join;
    co_return a + b;
  });
  fj::unit_pool pool;
  return static_cast<int>(fj::sync_wait(pool, fib, 10));
}
