// A minimal forkjoin user: only the public API, through the umbrella header.
#include <forkjoin/forkjoin.hpp>

#include <cstdio>

namespace {

fj::task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await fj::fork(&a, fib, n - 1);
  co_await fj::fork(&b, fib, n - 2);
  co_await fj::join;
  co_return a + b;
}

}  // namespace

int main() {
  fj::busy_pool pool(2);
  long const result = fj::sync_wait(pool, fib, 20);
  std::printf("fib(20) = %ld\n", result);
  return result == 6765 ? 0 : 1;
}
