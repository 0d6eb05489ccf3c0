// expect-error: fj::task<void>, which has no result: drop the out argument
// A void child has nothing to write through out.
#include <forkjoin/forkjoin.hpp>

fj::task<void> child() { co_return; }

fj::task<int> parent() {
  int r = 0;
  co_await fj::fork(&r, child);
  co_await fj::join;
  co_return r;
}

int main() {}
