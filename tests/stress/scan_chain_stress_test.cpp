// Stress for the scans' chain (include/forkjoin/detail/algorithm/scan.hpp, docs/protocols/scan.md): chunks
// taken in index order, each waiting for the carry of the one before. At 1, 2, 3, 4, 8 and 16 workers
// (oversubscribed on purpose on small machines: a waiter must yield to a preempted predecessor), on lazy and
// busy pools, from ordinary code and from inside tasks (fj::co::), with random sizes and partitions (small
// fixed grains make many hand-overs), in place and not, against std::; two ordinary threads scanning on one
// pool at once; and an element that throws, slowly, in a chunk that later chunks wait behind, in its fold or
// in its scan after its carry went on: the call must end with the exception, never hang.

#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/test_config.hpp"
#include "support/watchdog.hpp"

namespace {

using value = std::int64_t;

struct chain_error : std::runtime_error {
  chain_error() : std::runtime_error("chain") {}
};

std::vector<value> random_values(std::mt19937_64& rng, std::size_t n) {
  std::uniform_int_distribution<value> d(-1000, 1000);
  std::vector<value> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

fj::partition random_partition(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: return fj::partition{};
    case 1: return fj::grain(1 + rng() % 3000);
    case 2: return fj::fixed_grain(1 + rng() % 64);  // many chunks: a hand-over every few elements
    default: return fj::fixed_grain(1 + rng() % 5000);
  }
}

template <class Pool>
fj::task<void> scans_in_task(std::vector<value>* v, std::vector<value>* out, std::vector<value>* in_place,
                             fj::partition p) {
  co_await fj::call(fj::co::inclusive_scan, v->begin(), v->end(), out->begin(), std::plus<>{}, p);
  co_await fj::call(fj::co::exclusive_scan, in_place->begin(), in_place->end(), in_place->begin(), value{7},
                    std::plus<>{}, p);
  co_await fj::join;
}

// One random round on `pool`: both scans, from ordinary code and from a task, checked against std::.
template <class Pool>
void one_round(Pool& pool, std::mt19937_64& rng) {
  std::size_t const n = rng() % fj::test::scaled(300'000, 40'000);
  fj::partition const p = random_partition(rng);
  auto v = random_values(rng, n);
  std::vector<value> inclusive(n);
  std::vector<value> exclusive(n);
  std::inclusive_scan(v.begin(), v.end(), inclusive.begin());
  std::exclusive_scan(v.begin(), v.end(), exclusive.begin(), value{7});

  std::vector<value> out(n);
  fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), std::plus<>{}, p);
  ASSERT_EQ(out, inclusive) << "n=" << n;
  std::vector<value> in_place = v;
  fj::exclusive_scan(pool, in_place.begin(), in_place.end(), in_place.begin(), value{7}, std::plus<>{}, p);
  ASSERT_EQ(in_place, exclusive) << "n=" << n;

  std::vector<value> task_out(n);
  std::vector<value> task_in_place = v;
  fj::sync_wait(pool, scans_in_task<Pool>, &v, &task_out, &task_in_place, p);
  ASSERT_EQ(task_out, inclusive) << "in a task, n=" << n;
  ASSERT_EQ(task_in_place, exclusive) << "in a task, n=" << n;
}

// fn(pool, name) on lazy pools of 1, 2, 3, 4, 8 and 16 workers and on busy pools of up to 4 (more busy
// workers than cores would only spin against each other).
template <class Fn>
void on_lazy_and_busy_pools(const std::string& label, Fn fn) {
  for (std::size_t workers : {1U, 2U, 3U, 4U, 8U, 16U}) {
    fj::lazy_pool lazy(workers);
    fn(lazy, label + "lazy" + std::to_string(workers));
    if (workers <= 4) {
      fj::busy_pool busy(workers);
      fn(busy, label + "busy" + std::to_string(workers));
    }
  }
}

template <class Pool>
void rounds(Pool& pool, int count, fj::test::watchdog& dog, const std::string& name) {
  std::mt19937_64 rng(fj::test::seed() ^ std::hash<std::string>{}(name));
  auto watch = dog.watch(name, [&] { return fj::test::describe_pool(pool); });
  for (int i = 0; i < count; ++i) one_round(pool, rng);
}

TEST(ScanChainStress, MatchesStdAtEveryWorkerCount) {
  fj::test::watchdog dog;
  int const count = static_cast<int>(fj::test::scaled(40, 6));
  on_lazy_and_busy_pools("", [&](auto& pool, const std::string& name) { rounds(pool, count, dog, name); });
}

TEST(ScanChainStress, TwoCallersShareOnePool) {
  fj::test::watchdog dog;
  int const count = static_cast<int>(fj::test::scaled(30, 5));
  for (std::size_t workers : {2U, 4U, 16U}) {
    fj::lazy_pool pool(workers);
    auto watch = dog.watch("two callers, lazy" + std::to_string(workers),
                           [&] { return fj::test::describe_pool(pool); });
    std::thread other([&] {
      std::mt19937_64 rng(fj::test::seed() + 1);
      for (int i = 0; i < count; ++i) one_round(pool, rng);
    });
    std::mt19937_64 rng(fj::test::seed() + 2);
    for (int i = 0; i < count; ++i) one_round(pool, rng);
    other.join();
  }
}

// An element equal to `poison` throws after a pause long enough for the other threads to take later chunks
// and wait behind its chunk. With `in_scan`, only when the accumulator holds the large init, which only the
// scan's running total does (a chunk's fold starts from its own first element): the throw then comes after
// the chunk's carry went on.
struct slow_throw {
  static constexpr value poison = 999'999;
  static constexpr value big = value{1} << 40;
  bool in_scan;
  value operator()(value a, value b) const {
    if (b == poison && (!in_scan || a >= big / 2)) {
      auto const until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
      while (std::chrono::steady_clock::now() < until) {
      }
      throw chain_error();
    }
    return a + b;
  }
};

template <class Pool>
void throwing_rounds(Pool& pool, int count, fj::test::watchdog& dog, const std::string& name) {
  std::mt19937_64 rng(fj::test::seed() ^ std::hash<std::string>{}(name));
  auto watch = dog.watch(name, [&] { return fj::test::describe_pool(pool); });
  for (int i = 0; i < count; ++i) {
    std::size_t const n = 20'000 + rng() % fj::test::scaled(200'000, 30'000);
    std::size_t const grain = 500 + rng() % 2000;
    auto v = random_values(rng, n);
    v[grain + rng() % grain] = slow_throw::poison;  // in the second chunk: the rest wait behind it
    std::vector<value> out(n);
    for (bool in_scan : {false, true}) {
      for (fj::partition p : {fj::fixed_grain(grain), fj::grain(grain)}) {
        EXPECT_THROW(fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), slow_throw{in_scan},
                                        slow_throw::big, p),
                     chain_error);
      }
    }
  }
  // The pool is still usable.
  auto v = random_values(rng, 100'000);
  std::vector<value> out(v.size());
  std::vector<value> expected(v.size());
  fj::inclusive_scan(pool, v.begin(), v.end(), out.begin(), std::plus<>{}, fj::grain(1000));
  std::inclusive_scan(v.begin(), v.end(), expected.begin());
  EXPECT_EQ(out, expected);
}

TEST(ScanChainStress, AThrowStopsTheChunksWaitingBehindIt) {
  fj::test::watchdog dog;
  int const count = static_cast<int>(fj::test::scaled(6, 2));
  on_lazy_and_busy_pools(
      "throwing, ", [&](auto& pool, const std::string& name) { throwing_rounds(pool, count, dog, name); });
}

}  // namespace
