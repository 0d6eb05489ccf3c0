// Concurrent behaviour of the priority storages: 1 to 16 threads, each one worker, push values with random
// priorities and pop at random, then drain; every value is taken exactly once, its payload (plain fields
// written before the push) is read intact, and the relaxed storage's blocks are deleted behind the workers.
// ThreadSanitizer checks the publication; AddressSanitizer the reclamation (a leaked block or item is
// reported at exit, a block deleted too early is a use after free).

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "forkjoin/ext/relaxed_priority_storage.hpp"
#include "forkjoin/ext/strict_priority_storage.hpp"
#include "support/test_config.hpp"
#include "support/watchdog.hpp"

namespace {

// What a value points to: written by the pusher before push, read by the taker after pop.
struct payload {
  std::uint64_t id = 0;
  std::uint64_t check = 0;
  std::atomic<std::uint32_t> taken{0};
};

std::uint64_t check_of(std::uint64_t id) { return (id * 0x9e3779b97f4a7c15ULL) ^ 0x2545f4914f6cdd1dULL; }

using strict = fj::strict_priority_storage<payload*>;
using relaxed = fj::relaxed_priority_storage<payload*, 8>;
// Tiny blocks: a block boundary every few pushes, so leaving and deleting blocks races with pushes often.
using relaxed_tiny = fj::relaxed_priority_storage<payload*, 2, 2>;

template <class S>
void run(std::size_t threads) {
  const std::uint64_t total = fj::test::scaled(120'000, 6'000);
  const std::uint64_t per_thread = total / threads;
  const std::uint64_t n = per_thread * threads;
  auto values = std::make_unique<payload[]>(n);
  S storage(threads);
  std::atomic<std::uint64_t> taken_total{0};
  std::atomic<std::uint64_t> bad{0};
  auto take = [&](payload* v) {
    if (v->check != check_of(v->id)) {
      // relaxed: a count, read after the joins.
      bad.fetch_add(1, std::memory_order_relaxed);
    }
    // relaxed: only atomicity matters; read after the joins.
    if (v->taken.fetch_add(1, std::memory_order_relaxed) != 0) {
      // relaxed: as above.
      bad.fetch_add(1, std::memory_order_relaxed);
    }
    // relaxed: progress only, for the drain loop's exit test.
    taken_total.fetch_add(1, std::memory_order_relaxed);
  };
  // A lost value leaves the drain loop spinning: fail loudly instead of waiting for ctest's timeout.
  fj::test::watchdog dog;
  auto watch = dog.watch(std::to_string(threads) + " threads, seed " + std::to_string(fj::test::seed()), [&] {
    // relaxed: a snapshot for the report.
    return "taken " + std::to_string(taken_total.load(std::memory_order_relaxed)) + " of " +
           std::to_string(n) + " (a value was lost)\n";
  });
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (std::size_t w = 0; w < threads; ++w) {
    pool.emplace_back([&, w] {
      std::mt19937_64 rng(fj::test::seed() * 31 + w);
      for (std::uint64_t i = 0; i < per_thread; ++i) {
        payload& v = values[w * per_thread + i];
        v.id = w * per_thread + i;
        v.check = check_of(v.id);
        // Few distinct priorities: many ties, as in branch and bound.
        storage.push(w, &v, static_cast<double>(rng() % 64));
        if (rng() % 2 == 0) {
          if (const std::optional<payload*> got = storage.pop(w)) {
            take(*got);
          }
        }
      }
      // Drain: every worker keeps popping until every value is taken (its own are always visible to it).
      // relaxed: the count only decides when to stop; the values themselves came through the storage.
      while (taken_total.load(std::memory_order_relaxed) < n) {
        if (const std::optional<payload*> got = storage.pop(w)) {
          take(*got);
        } else {
          std::this_thread::yield();
        }
      }
    });
  }
  for (std::thread& t : pool) {
    t.join();
  }
  // relaxed: after the joins.
  EXPECT_EQ(bad.load(std::memory_order_relaxed), 0U);
  EXPECT_EQ(taken_total.load(std::memory_order_relaxed), n);
  for (std::uint64_t i = 0; i < n; ++i) {
    // relaxed: after the joins.
    ASSERT_EQ(values[i].taken.load(std::memory_order_relaxed), 1U) << "value " << i;
  }
  for (std::size_t w = 0; w < threads; ++w) {
    EXPECT_EQ(storage.pop(w), std::nullopt);
  }
  EXPECT_TRUE(storage.empty_hint());
  if constexpr (requires { storage.blocks_live(); }) {
    // Every head is at the tail now: only the blocks around it remain (K <= block size: at most two
    // blocks hold slots at or above the tail, plus the one the heads are in).
    EXPECT_LE(storage.blocks_live(), 3U);
  }
}

class PriorityStorageThreads : public ::testing::TestWithParam<std::size_t> {};

INSTANTIATE_TEST_SUITE_P(Threads, PriorityStorageThreads, ::testing::Values(1, 2, 4, 8, 16),
                         [](const ::testing::TestParamInfo<std::size_t>& p) {
                           return std::to_string(p.param) + "Threads";
                         });

TEST_P(PriorityStorageThreads, StrictStorageTakesEveryValueExactlyOnce) { run<strict>(GetParam()); }

TEST_P(PriorityStorageThreads, RelaxedStorageTakesEveryValueExactlyOnce) { run<relaxed>(GetParam()); }

TEST_P(PriorityStorageThreads, RelaxedStorageWithTinyBlocksTakesEveryValueExactlyOnceAndFreesBlocks) {
  run<relaxed_tiny>(GetParam());
}

}  // namespace
