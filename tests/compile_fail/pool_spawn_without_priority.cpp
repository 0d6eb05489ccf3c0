// expect-error: pool\.spawn\(priority, fn, args\.\.\.\): this pool has no priority storage
// Spawning a priority task on a pool configured without a priority storage (issue 24, "Bad input and
// misuse"): a compile error that says how to configure one, not a task silently run in another order.
#include <forkjoin/forkjoin.hpp>

int main() {
  fj::lazy_pool pool(1);
  pool.spawn(1.0, [] {});
}
