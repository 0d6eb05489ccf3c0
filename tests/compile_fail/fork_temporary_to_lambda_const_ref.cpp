// expect-error: fj::fork: argument N .*is a temporary bound to a reference parameter of the forked function
// The same through a lambda whose parameters are spelled out: its one operator() is inspected.
#include <forkjoin/forkjoin.hpp>

#include <string>

int main() {
  auto length = [](const std::string& s) -> fj::task<int> { co_return static_cast<int>(s.size()); };
  auto parent = [&](const std::string& s) -> fj::task<int> {
    int n = 0;
    co_await fj::fork(&n, length, s + "!");
    co_await fj::join;
    co_return n;
  };
  (void)parent;
}
