#include <forkjoin/forkjoin.hpp>

#include <cstdio>

// A plain function: no coroutine, no pool in sight.
long fib(int n) {
  if (n < 2) return n;
  long a = 0;
  fj::scope s;
  s.spawn(&a, fib, n - 1);  // queued; an idle worker may take it
  long const b = fib(n - 2);
  s.sync();  // wait for the children (the destructor would too)
  return a + b;
}

int main() {
  long const r = fj::sync_wait(fib, 30);  // runs on fj::default_pool()
  std::printf("fib(30) = %ld\n", r);
  return r == 832040 ? 0 : 1;
}
