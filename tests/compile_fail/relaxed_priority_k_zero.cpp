// expect-error: fj::relaxed_priority_storage: k must be at least 1
// k = 0 would be no relaxation at all: the relaxed storage refuses it with a named error pointing to the
// strict storage, in a group and in a pool's priority part alike.
#include <forkjoin/forkjoin.hpp>

int main() {
  fj::lazy_pool pool(1);
  fj::relaxed_priority_group<0> g(pool);
  g.spawn(1.0, [] {});
}
