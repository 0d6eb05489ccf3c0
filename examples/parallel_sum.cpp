// A parallel loop and a parallel reduction over a std::vector, by divide and conquer with a grain size.
#include <forkjoin/forkjoin.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <span>
#include <vector>

// Ranges up to this many elements are handled by a plain loop. Much longer than a fork's cost (tens of
// nanoseconds), much shorter than the whole input, so that there are many more pieces than workers.
constexpr std::size_t grain = 4096;

// The leaves are ordinary functions: compilers vectorise them better than a loop inside a coroutine.
void fill_serial(std::span<std::int64_t> xs, std::size_t first_index) {
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<std::int64_t>(first_index + i);
}

std::int64_t sum_serial(std::span<const std::int64_t> xs) {
  return std::accumulate(xs.begin(), xs.end(), std::int64_t{0});
}

// The loop: xs[i] = first_index + i. Split in two, fork one half, call the other, join.
fj::task<void> fill(std::span<std::int64_t> xs, std::size_t first_index) {
  if (xs.size() <= grain) {
    fill_serial(xs, first_index);
    co_return;
  }
  std::size_t const half = xs.size() / 2;
  // A span is passed by value: the child keeps its own copy. The elements it refers to live in main's vector,
  // which outlives every task.
  co_await fj::fork(fill, xs.first(half), first_index);
  co_await fj::call(fill, xs.subspan(half), first_index + half);
  co_await fj::join;
}

// The reduction: the sum of the two halves.
fj::task<std::int64_t> sum(std::span<const std::int64_t> xs) {
  if (xs.size() <= grain) co_return sum_serial(xs);
  std::size_t const half = xs.size() / 2;
  std::int64_t left = 0;
  std::int64_t right = 0;
  co_await fj::fork(&left, sum, xs.first(half));  // left is written by the time the join returns
  co_await fj::call(&right, sum, xs.subspan(half));
  co_await fj::join;  // read left only after this
  co_return left + right;
}

int main() {
  fj::lazy_pool pool;
  std::vector<std::int64_t> data(10'000'000);
  fj::sync_wait(pool, fill, std::span<std::int64_t>(data), std::size_t{0});
  std::int64_t const total = fj::sync_wait(pool, sum, std::span<const std::int64_t>(data));

  auto const n = static_cast<std::int64_t>(data.size());
  std::int64_t const expected = n * (n - 1) / 2;  // 0 + 1 + ... + (n - 1)
  std::printf("sum of 0..%lld = %lld (expected %lld)\n", static_cast<long long>(n - 1),
              static_cast<long long>(total), static_cast<long long>(expected));
  return total == expected ? 0 : 1;
}
