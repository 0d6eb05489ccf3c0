// Exceptions in fork-join code: a child's exception is rethrown at its parent's join, and a root task's
// exception is rethrown by fj::sync_wait to the thread that called it.
#include <forkjoin/forkjoin.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// Checks one record: a negative one is an error.
fj::task<int> parse(int record) {
  if (record < 0) throw std::invalid_argument("negative record " + std::to_string(record));
  co_return record * 2;
}

// 1. A child throws: the join waits for every child, then rethrows the first exception. When both children
// throw, one exception is rethrown and the other is dropped (and counted in pool.stats()).
fj::task<int> parse_pair_or_zero(int x, int y) {
  int a = 0;
  int b = 0;
  co_await fj::fork(&a, parse, x);
  co_await fj::fork(&b, parse, y);
  try {
    co_await fj::join;
  } catch (const std::invalid_argument&) {
    co_return 0;  // every child has finished here
  }
  co_return a + b;
}

// 2. The parent throws while children it forked may still be running (here it meets a record that is too
// large after forking the first ones). C++ destroys the task's locals as the exception leaves its body,
// before the implicit join, and the children write into `parsed`. So: catch, join, then rethrow.
// (co_await is not allowed inside a catch block, hence the exception_ptr.)
fj::task<int> parse_all(const std::vector<int>& records) {
  std::vector<int> parsed(records.size());
  std::exception_ptr failed;
  try {
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (records[i] > 1000) throw std::out_of_range("record too large: " + std::to_string(records[i]));
      co_await fj::fork(&parsed[i], parse, records[i]);
    }
  } catch (...) {
    failed = std::current_exception();
  }
  co_await fj::join;  // rethrows a child's exception, if one threw
  if (failed) std::rethrow_exception(failed);
  int total = 0;
  for (int p : parsed) total += p;
  co_return total;
}

// 3. sync_wait returns the root's result or rethrows its exception. Returns which exception it was.
template <class... Args>
std::string outcome(fj::lazy_pool& pool, Args&&... args) {
  try {
    return "value " + std::to_string(fj::sync_wait(pool, std::forward<Args>(args)...));
  } catch (const std::invalid_argument& e) {
    return std::string("invalid_argument: ") + e.what();
  } catch (const std::out_of_range& e) {
    return std::string("out_of_range: ") + e.what();
  }
}

int main() {
  fj::lazy_pool pool;
  std::vector<int> const good{1, 2, 3, 4, 5};
  std::vector<int> const negative{1, 2, -3, 4, 5};
  std::vector<int> const too_large{1, 2, 3, 4000, 5};

  struct check {
    std::string got;
    std::string expected;
  };
  std::vector<check> const checks{
      {outcome(pool, parse_pair_or_zero, 1, 2), "value 6"},
      {outcome(pool, parse_pair_or_zero, 1, -2), "value 0"},
      {outcome(pool, parse_pair_or_zero, -1, -2), "value 0"},  // one of the two exceptions is dropped
      {outcome(pool, parse_all, good), "value 30"},
      {outcome(pool, parse_all, negative), "invalid_argument: negative record -3"},
      {outcome(pool, parse_all, too_large), "out_of_range: record too large: 4000"},
  };

  bool ok = true;
  for (const check& c : checks) {
    std::printf("%-40s (expected %s)\n", c.got.c_str(), c.expected.c_str());
    ok = ok && c.got == c.expected;
  }
  std::uint64_t dropped = 0;
  for (const fj::worker_stats& s : pool.stats()) dropped += s.exceptions_dropped;
  std::printf("exceptions dropped: %llu (expected 1)\n", static_cast<unsigned long long>(dropped));
  return ok && dropped == 1 ? 0 : 1;
}
