#include <tbb/parallel_invoke.h>

#include "fib.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::fib {
namespace {

long fib(int n) {
  if (n < 2) {
    return n;
  }
  long a = 0;
  long b = 0;
  tbb::parallel_invoke([&] { a = fib(n - 1); }, [&] { b = fib(n - 2); });
  return a + b;
}

const implementation_registrar registrar{"fib", "tbb", run_on_team<tbb_team, fib>};

}  // namespace
}  // namespace fjb::fib
