#include "fib.hpp"
#include "teams/fj_team.hpp"

namespace fjb::fib {
namespace {

// Child stealing with a plain function: forkjoin.cpp's algorithm, written with fj::scope.
long fib(int n) {
  if (n < 2) {
    return n;
  }
  long a = 0;
  fj::scope s;
  s.spawn(&a, fib, n - 1);
  const long b = fib(n - 2);
  s.sync();
  return a + b;
}

run_result run(const run_request& request) {
  const int n = argument(request);
  fj_team<fj::lazy_pool> team(request.workers);
  long answer = 0;
  const double seconds = team.time([&](fj::lazy_pool& pool) { answer = fj::sync_wait(pool, fib, n); });
  verify(n, answer);
  return {seconds};
}

const implementation_registrar spawn{"fib", "fj-spawn", run};

}  // namespace
}  // namespace fjb::fib
