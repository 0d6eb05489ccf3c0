// expect-error: (must return fj::task<T>|task_invocable)
// sync_wait needs a function that returns fj::task<T>.
#include <forkjoin/forkjoin.hpp>

int plain(int x) { return x; }

int main() {
  fj::unit_pool pool;
  return fj::sync_wait(pool, plain, 1);
}
