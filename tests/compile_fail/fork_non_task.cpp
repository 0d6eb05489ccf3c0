// expect-error: fn\(args\.\.\.\) must return fj::task<T>
// Forking an ordinary function (not a coroutine returning fj::task) is a compile-time error.
#include <forkjoin/forkjoin.hpp>

int plain(int x) { return x; }

fj::task<int> parent() {
  int r = 0;
  co_await fj::fork(&r, plain, 1);
  co_await fj::join;
  co_return r;
}

int main() {}
