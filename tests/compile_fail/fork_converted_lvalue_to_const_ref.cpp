// expect-error: fj::fork: argument N .*is a temporary bound to a reference parameter of the forked function
// An lvalue of another type is converted into a temporary std::string, which dies with the co_await
// statement.
#include <forkjoin/forkjoin.hpp>

#include <string>

fj::task<int> length(int /*depth*/, const std::string& s) { co_return static_cast<int>(s.size()); }

fj::task<int> parent(const char* name) {
  int n = 0;
  co_await fj::fork(&n, length, 1, name);
  co_await fj::join;
  co_return n;
}

int main() {}
