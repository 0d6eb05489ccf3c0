// expect-error: you can co_await only fj::fork\(\.\.\.\), fj::call\(\.\.\.\) or fj::join
// A task cannot await arbitrary awaitables (or another task directly).
#include <forkjoin/forkjoin.hpp>

#include <coroutine>

fj::task<int> child() { co_return 1; }

fj::task<int> parent() {
  co_await std::suspend_always{};
  co_return 0;
}

int main() {}
