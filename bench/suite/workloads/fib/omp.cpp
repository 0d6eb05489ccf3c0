#include "fib.hpp"
#include "teams/omp_team.hpp"

namespace fjb::fib {
namespace {

long fib(int n) {
  if (n < 2) {
    return n;
  }
  long a = 0;
  long b = 0;
#pragma omp task shared(a)
  a = fib(n - 1);
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

run_result run(const run_request& request) {
  const int n = argument(request.size);
  omp_team team(request.workers);
  long answer = 0;
  const double seconds = team.time([&] { answer = fib(n); });
  verify(n, answer);
  return {seconds};
}

const implementation_registrar registrar{"fib", "omp", run};

}  // namespace
}  // namespace fjb::fib
