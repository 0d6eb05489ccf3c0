// expect-error: spawn\(fn, args\.\.\.\) or spawn\(&out, fn, args\.\.\.\): fn\(args\.\.\.\) must be callable
// spawn needs something callable with the arguments given: here the argument has the wrong type.
#include <forkjoin/forkjoin.hpp>

void plain(int x) { (void)x; }

void spawner() {
  fj::scope s;
  s.spawn(plain, "not an int");
}

int main() {}
