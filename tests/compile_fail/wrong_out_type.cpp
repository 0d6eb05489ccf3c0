// expect-error: out must be a pointer to the child's result type
// The out pointer must point to exactly the child's result type.
#include <forkjoin/forkjoin.hpp>

fj::task<long> child() { co_return 1; }

fj::task<int> parent() {
  int r = 0;
  co_await fj::fork(&r, child);
  co_await fj::join;
  co_return r;
}

int main() {}
