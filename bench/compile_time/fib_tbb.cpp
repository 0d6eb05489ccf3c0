// The README's fib example written with oneTBB's task_group, for scripts/compile-time.sh: the same program,
// so that the compile times of the two translation units can be compared side by side.
#include <tbb/task_group.h>

#include <cstdio>

long fib(int n) {
  if (n < 2) return n;
  long a = 0;
  long b = 0;
  tbb::task_group g;
  g.run([&] { a = fib(n - 1); });  // child may run on another thread
  b = fib(n - 2);
  g.wait();  // wait for the spawned child
  return a + b;
}

int main() {
  long const r = fib(30);
  std::printf("fib(30) = %ld\n", r);
  return r == 832040 ? 0 : 1;
}
