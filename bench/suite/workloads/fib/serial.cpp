#include "fib.hpp"
#include "stopwatch.hpp"

namespace fjb::fib {
namespace {

long fib(int n) {
  if (n < 2) {
    return n;
  }
  return fib(n - 1) + fib(n - 2);
}

run_result run(const run_request& request) {
  const int n = argument(request.size);
  long answer = 0;
  const double seconds = seconds_taken([&] { answer = fib(n); });
  verify(n, answer);
  return {seconds};
}

const implementation_registrar registrar{"fib", "serial", run};

}  // namespace
}  // namespace fjb::fib
