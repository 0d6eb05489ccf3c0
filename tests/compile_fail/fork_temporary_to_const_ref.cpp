// expect-error: fj::fork: argument N .*is a temporary bound to a reference parameter of the forked function
// The substring is a temporary that dies when the parent continues after the co_await, possibly before the
// child has read it (count_a(std::string const&) gave 6 wrong answers in 20 runs before this check existed).
#include <forkjoin/forkjoin.hpp>

#include <cstddef>
#include <string>

fj::task<int> count_a(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == 'a' ? 1 : 0;
  co_return n;
}

fj::task<int> parent(std::string s) {
  std::size_t const mid = s.size() / 2;
  int left = 0;
  co_await fj::fork(&left, count_a, s.substr(0, mid));
  co_await fj::join;
  co_return left;
}

int main() {}
