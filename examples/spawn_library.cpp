// A library function written with fj::scope keeps its plain signature and can be called from ordinary code,
// from a coroutine task, and from inside another spawned child alike.
#include <forkjoin/forkjoin.hpp>

#include <cstddef>
#include <cstdio>
#include <numeric>
#include <span>
#include <vector>

// The library: a parallel sum over a span, splitting in halves down to a grain.
double parallel_sum(std::span<const double> v) {
  if (v.size() <= 4096) return std::accumulate(v.begin(), v.end(), 0.0);
  std::size_t const half = v.size() / 2;
  auto [left, right] = fj::parallel_invoke([&] { return parallel_sum(v.first(half)); },
                                           [&] { return parallel_sum(v.subspan(half)); });
  return left + right;
}

// A coroutine task that calls it: the spawns go onto the worker running the task.
fj::task<double> twice_in_a_task(std::span<const double> v) {
  double a = 0;
  co_await fj::fork(&a, [](std::span<const double> w) -> fj::task<double> { co_return parallel_sum(w); }, v);
  double const b = parallel_sum(v);
  co_await fj::join;
  co_return a + b;
}

int main() {
  std::vector<double> const data(1 << 20, 0.5);
  double const expected = 0.5 * static_cast<double>(data.size());

  // From ordinary code: on fj::default_pool().
  double const direct = fj::sync_wait(parallel_sum, std::span<const double>(data));

  // From inside spawned children, on an explicit pool.
  fj::lazy_pool pool;
  double nested[2] = {0, 0};
  fj::sync_wait(pool, [&] {
    fj::scope s;
    s.spawn(&nested[0], parallel_sum, std::span<const double>(data));
    s.spawn(&nested[1], parallel_sum, std::span<const double>(data));
  });

  // From a coroutine task on the same pool.
  double const in_task = fj::sync_wait(pool, twice_in_a_task, std::span<const double>(data));

  std::printf("%g %g %g %g\n", direct, nested[0], nested[1], in_task);
  bool const ok =
      direct == expected && nested[0] == expected && nested[1] == expected && in_task == 2 * expected;
  return ok ? 0 : 1;
}
