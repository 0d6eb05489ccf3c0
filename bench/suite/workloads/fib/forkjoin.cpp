#include "fib.hpp"
#include "teams/fj_team.hpp"

namespace fjb::fib {
namespace {

fj::task<long> fib(int n) {
  if (n < 2) {
    co_return n;
  }
  long a = 0;
  long b = 0;
  co_await fj::fork(&a, fib, n - 1);
  co_await fj::call(&b, fib, n - 2);
  co_await fj::join;
  co_return a + b;
}

template <class Pool>
run_result run(const run_request& request) {
  const int n = argument(request);
  fj_team<Pool> team(request.workers);
  long answer = 0;
  const double seconds = team.time([&](Pool& pool) { answer = fj::sync_wait(pool, fib, n); });
  verify(n, answer);
  return {seconds};
}

const implementation_registrar busy{"fib", "fj-busy", run<fj::busy_pool>};
const implementation_registrar lazy{"fib", "fj-lazy", run<fj::lazy_pool>};
const implementation_registrar unit{"fib", "fj-unit", run<fj::unit_pool>};

}  // namespace
}  // namespace fjb::fib
