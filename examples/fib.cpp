#include <forkjoin/forkjoin.hpp>

#include <cstdio>

fj::task<long> fib(int n) {
  if (n < 2) co_return n;
  long a = 0;
  long b = 0;
  co_await fj::fork(&a, fib, n - 1);  // child runs now; our continuation may be stolen
  co_await fj::call(&b, fib, n - 2);  // child runs now; nothing to steal
  co_await fj::join;                  // wait for forked children
  co_return a + b;
}

int main() {
  fj::lazy_pool pool;  // one worker per core; sleeps when idle
  long const r = fj::sync_wait(pool, fib, 30);
  std::printf("fib(30) = %ld\n", r);
  return r == 832040 ? 0 : 1;
}
