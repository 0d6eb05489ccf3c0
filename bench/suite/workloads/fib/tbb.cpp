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

run_result run(const run_request& request) {
  const int n = argument(request.size);
  tbb_team team(request.workers);
  long answer = 0;
  const double seconds = team.time([&] { answer = fib(n); });
  verify(n, answer);
  return {seconds};
}

const implementation_registrar registrar{"fib", "tbb", run};

}  // namespace
}  // namespace fjb::fib
