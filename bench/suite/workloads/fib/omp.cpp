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

const implementation_registrar registrar{"fib", "omp", run_on_team<omp_team, fib>};

}  // namespace
}  // namespace fjb::fib
