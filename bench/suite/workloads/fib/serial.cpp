#include "fib.hpp"
#include "stopwatch.hpp"

namespace fjb::fib {
namespace {

// The serial projection of the forkjoin version, call for call: each fork or call becomes a plain call that
// writes its result through the same pointer. libfork's benchmark writes its serial fib this way too, so T/Ts
// here is comparable with the reference figures in the report. (A fib that returns its value lets clang turn
// one of the two calls into a loop and runs about twice as fast; fj-overhead measures both.)
void fib(long* out, int n) {
  if (n < 2) {
    *out = n;
    return;
  }
  long a = 0;
  long b = 0;
  fib(&a, n - 1);
  fib(&b, n - 2);
  *out = a + b;
}

run_result run(const run_request& request) {
  const int n = argument(request);
  long answer = 0;
  const double seconds = seconds_taken([&] { fib(&answer, n); });
  verify(n, answer);
  return {seconds};
}

const implementation_registrar registrar{"fib", "serial", run};

}  // namespace
}  // namespace fjb::fib
