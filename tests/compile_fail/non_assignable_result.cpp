// expect-error: T must be move-constructible and move-assignable
// A result type that cannot be assigned (a const member) cannot come back through out.
#include <forkjoin/forkjoin.hpp>

struct fixed {
  const int value;
};

fj::task<fixed> make() { co_return fixed{1}; }

int main() {}
