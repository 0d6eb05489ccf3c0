// expect-error: fj::priority_group::spawn\(priority, fn, args\.\.\.\): fn\(args\.\.\.\) must be callable
// A priority task must be callable with its (copied) arguments: here the argument has the wrong type.
#include <forkjoin/forkjoin.hpp>

void plain(int x) { (void)x; }

int main() {
  fj::lazy_pool pool(1);
  fj::strict_priority_group g(pool);
  g.spawn(1.0, plain, "not an int");
}
