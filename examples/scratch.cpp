// fj::scratch<T>: a temporary array on the worker's own stack, here a parallel merge sort's merge buffer.
//
// A scratch array costs a pointer bump instead of an allocator call, and it is freed at the end of its scope.
// Its rules: create it inside a task, and never inside a fork-join scope. Either make it before the first
// fork and let it die after the join (children may then use it), or, as below, make it after the join.
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>

constexpr std::size_t grain = 2048;  // shorter ranges are sorted by std::sort

fj::task<void> merge_sort(std::span<int> xs) {
  if (xs.size() <= grain) {
    std::sort(xs.begin(), xs.end());
    co_return;
  }
  std::size_t const half = xs.size() / 2;
  co_await fj::fork(merge_sort, xs.first(half));
  co_await fj::call(merge_sort, xs.subspan(half));
  co_await fj::join;

  // Both halves are sorted. The fork-join scope is closed, so a scratch array may be created here; it is
  // freed when this task returns, before its parent's join.
  fj::scratch<int> buffer(xs.size());
  std::merge(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(half),
             xs.begin() + static_cast<std::ptrdiff_t>(half), xs.end(), buffer.begin());
  std::copy(buffer.begin(), buffer.end(), xs.begin());
}

int main() {
  // Pseudo-random input (a linear congruential generator, so that every run sorts the same numbers).
  std::vector<int> data(1'000'000);
  std::uint32_t state = 12345;
  for (int& x : data) {
    state = state * 1664525U + 1013904223U;
    x = static_cast<int>(state >> 8U);
  }
  std::vector<int> expected = data;
  std::sort(expected.begin(), expected.end());

  fj::lazy_pool pool;
  fj::sync_wait(pool, merge_sort, std::span<int>(data));

  bool const ok = data == expected;
  std::printf("merge sort of %zu ints: %s\n", data.size(), ok ? "sorted" : "WRONG");
  return ok ? 0 : 1;
}
