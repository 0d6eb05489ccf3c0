// expect-error: fj::call: argument N .*must be converted to bind a reference parameter of the called function
// The literal is converted to a std::string inside fj::call's own call of the task function, and that
// temporary dies before the child starts (clang's AddressSanitizer reported stack-use-after-return before
// this check existed). A std::string made by the caller, fj::call(&n, length, std::string("xy")), is fine.
#include <forkjoin/forkjoin.hpp>

#include <string>

fj::task<int> length(const std::string& s) { co_return static_cast<int>(s.size()); }

fj::task<int> parent() {
  int n = 0;
  co_await fj::call(&n, length, "xy");
  co_return n;
}

int main() {}
