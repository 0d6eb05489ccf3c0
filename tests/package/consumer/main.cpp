// A minimal forkjoin user: only the public API, through the umbrella header, in a program and in a shared
// object it links (shared_part.cpp).
#include <forkjoin/forkjoin.hpp>

#include <cstdio>

#include "shared_part.hpp"

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
  long const sum = sum_in_shared_object(100);
  std::printf("sum to 100 in a shared object = %ld\n", sum);
  return result == 6765 && sum == 5050 ? 0 : 1;
}
