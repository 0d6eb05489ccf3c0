// expect-error: fj::fork: argument N .*is a temporary bound to a reference parameter of the forked function
// An rvalue reference parameter keeps a reference, not a copy: the vector dies with the co_await statement.
#include <forkjoin/forkjoin.hpp>

#include <cstddef>
#include <vector>

fj::task<std::size_t> consume(std::vector<int>&& v) { co_return v.size(); }

fj::task<std::size_t> parent() {
  std::size_t n = 0;
  co_await fj::fork(&n, consume, std::vector<int>(3, 1));
  co_await fj::join;
  co_return n;
}

int main() {}
