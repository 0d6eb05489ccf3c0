// A recursive lambda (fj::recursive), a fork-join loop, and an exception travelling to sync_wait.
#include <forkjoin/forkjoin.hpp>

#include <cstdio>
#include <stdexcept>
#include <vector>

int main() {
  fj::busy_pool pool(2);

  // Sum of a range by divide and conquer: the lambda receives itself as `self`.
  auto sum = fj::recursive([](auto self, const long* first, const long* last) -> fj::task<long> {
    if (last - first <= 1024) {
      long s = 0;
      for (const long* p = first; p != last; ++p) s += *p;
      co_return s;
    }
    const long* mid = first + (last - first) / 2;
    long left = 0;
    long right = 0;
    co_await fj::fork(&left, self, first, mid);
    co_await fj::call(&right, self, mid, last);
    co_await fj::join;
    co_return left + right;
  });

  std::vector<long> data(1'000'000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<long>(i);
  long const total = fj::sync_wait(pool, sum, data.data(), data.data() + data.size());
  std::printf("sum = %ld\n", total);

  // An exception thrown by a child is rethrown at its parent's join, and from there reaches sync_wait.
  auto checked = [](int n) -> fj::task<int> {
    if (n < 0) throw std::invalid_argument("negative input");
    co_return n;
  };
  auto parent = [checked]() -> fj::task<int> {
    int a = 0;
    int b = 0;
    co_await fj::fork(&a, checked, 1);
    co_await fj::fork(&b, checked, -1);
    co_await fj::join;  // rethrows std::invalid_argument
    co_return a + b;
  };
  try {
    (void)fj::sync_wait(pool, parent);
    return 1;
  } catch (const std::invalid_argument& e) {
    std::printf("caught: %s\n", e.what());
  }
  return total == 499'999'500'000L ? 0 : 1;
}
