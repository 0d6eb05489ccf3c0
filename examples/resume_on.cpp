// Explicit scheduling with fj::resume_on: a task moves itself to another pool, or to a chosen worker, and
// carries on there.
//
// Here a one-worker "I/O pool" owns something that is not thread-safe (a log; in a real program a file, a
// socket, a GUI), while a compute pool does the parallel work. Every job computes on the compute pool, hops
// to the I/O pool to write its line, and hops back. The log is only ever touched by the I/O pool's single
// worker, so it needs no lock.
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

fj::task<long> fib(int n) {
  if (n < 2) co_return n;
  long a = 0;
  long b = 0;
  co_await fj::fork(&a, fib, n - 1);
  co_await fj::call(&b, fib, n - 2);
  co_await fj::join;
  co_return a + b;
}

struct pools {
  fj::lazy_pool* compute;
  fj::unit_pool* io;
  std::vector<std::string>* log;  // used on the I/O pool only
};

// Returns 1 if every hop landed where it should, else 0.
fj::task<int> job(pools p, int n) {
  long r = 0;
  co_await fj::call(&r, fib, n);  // parallel work on the compute pool

  // resume_on is allowed only outside a fork-join scope: here, after the call (after a join, in general).
  co_await fj::resume_on(*p.io);  // to whichever worker of the I/O pool is free (it has one)
  bool ok = fj::runs_on(*p.io);
  p.log->push_back("fib(" + std::to_string(n) + ") = " + std::to_string(r));

  co_await fj::resume_on(*p.compute, 0);  // back, to worker 0 of the compute pool in particular
  ok = ok && fj::runs_on(*p.compute) && fj::worker_index() == 0;
  co_return ok ? 1 : 0;
}

// Four jobs at once; each moves on its own. They all run on the compute pool again by the time the join
// returns.
fj::task<int> all_jobs(pools p) {
  std::array<int, 4> ok{};
  for (std::size_t i = 0; i < ok.size(); ++i) co_await fj::fork(&ok[i], job, p, 20 + static_cast<int>(i));
  co_await fj::join;
  int hops_ok = 0;
  for (int x : ok) hops_ok += x;
  co_return hops_ok;
}

int main() {
  fj::lazy_pool compute;  // one worker per core
  fj::unit_pool io;       // one worker
  std::vector<std::string> log;
  pools const p{&compute, &io, &log};

  int const hops_ok = fj::sync_wait(compute, all_jobs, p);

  std::sort(log.begin(), log.end());  // the jobs reach the I/O pool in any order
  std::vector<std::string> const expected{"fib(20) = 6765", "fib(21) = 10946", "fib(22) = 17711",
                                          "fib(23) = 28657"};
  for (const std::string& line : log) std::printf("%s\n", line.c_str());
  std::printf("jobs whose hops all landed right: %d of 4\n", hops_ok);
  return hops_ok == 4 && log == expected ? 0 : 1;
}
