// expect-error: fj::sync_wait\(pool, fn, args\.\.\.\): fn\(args\.\.\.\) must be callable and return
// sync_wait needs a function that returns fj::task<T>.
#include <forkjoin/forkjoin.hpp>

int plain(int x) { return x; }

int main() {
  fj::unit_pool pool;
  return fj::sync_wait(pool, plain, 1);
}
