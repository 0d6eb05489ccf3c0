// expect-error: no matching function for call to [^ ]*parallel_invoke
// Every argument of parallel_invoke must be callable with no arguments (its constraint); an int is not.
#include <forkjoin/forkjoin.hpp>

int main() {
  fj::parallel_invoke([] {}, 42);
}
