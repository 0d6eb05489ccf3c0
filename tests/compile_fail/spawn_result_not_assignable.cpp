// expect-error: fj::scope::spawn\(&out, fn, args\.\.\.\): fn's result must be assignable to out
// The child's result is assigned to *out when it returns: a std::string cannot be assigned to an int.
#include <forkjoin/forkjoin.hpp>

#include <string>

std::string name(int x) { return std::to_string(x); }

void spawner() {
  int out = 0;
  fj::scope s;
  s.spawn(&out, name, 1);
}

int main() {}
