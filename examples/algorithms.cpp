// The parallel algorithms: a loop, a sort, a reduction, a count and a scan from ordinary code, and a
// reduction inside a task.
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

int main() {
  fj::lazy_pool pool;
  std::vector<std::int64_t> v(1'000'000);
  fj::for_each_index(pool, std::size_t{0}, v.size(),
                     [&](std::size_t i) { v[i] = static_cast<std::int64_t>((i * 7919) % 1000); });

  fj::sort(pool, v);  // v.begin(), v.end() works too
  std::int64_t const sum = fj::reduce(pool, v, std::int64_t{0}, std::plus<>{});
  auto const big = fj::count_if(pool, v, [](std::int64_t x) { return x >= 500; });
  std::vector<std::int64_t> prefix(v.size());
  fj::inclusive_scan(pool, v.begin(), v.end(), prefix.begin());

  // Inside a task, the fj::co:: forms run on the task's own pool.
  auto twice = [&]() -> fj::task<std::int64_t> {
    std::int64_t s = 0;
    co_await fj::call(&s, fj::co::reduce, v.begin(), v.end(), std::int64_t{0}, std::plus<>{});
    co_return 2 * s;
  };
  std::int64_t const doubled = fj::sync_wait(pool, twice);

  std::printf("sum %lld, %lld elements >= 500, last prefix sum %lld\n", static_cast<long long>(sum),
              static_cast<long long>(big), static_cast<long long>(prefix.back()));
  bool const ok = std::is_sorted(v.begin(), v.end()) && sum == 499'500'000 && big == 500'000 &&
                  prefix.back() == sum && doubled == 2 * sum;
  return ok ? 0 : 1;
}
