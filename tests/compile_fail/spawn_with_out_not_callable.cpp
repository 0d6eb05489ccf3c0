// expect-error: fj::scope::spawn\(&out, fn, args\.\.\.\): fn\(args\.\.\.\) must be callable
// With an out pointer first, what follows must still be a valid call: here fn is not callable at all.
#include <forkjoin/forkjoin.hpp>

void spawner() {
  int out = 0;
  int not_a_function = 3;
  fj::scope s;
  s.spawn(&out, not_a_function, 1);
}

int main() {}
