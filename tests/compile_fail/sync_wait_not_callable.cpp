// expect-error: fj::sync_wait\(pool, fn, args\.\.\.\): fn\(args\.\.\.\) must be callable
// sync_wait takes a task or a plain function, but fn(args...) must be a valid call.
#include <forkjoin/forkjoin.hpp>

int plain(int x) { return x; }

int main() {
  fj::unit_pool pool;
  return fj::sync_wait(pool, plain, "not an int");
}
