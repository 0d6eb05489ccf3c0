// Concurrent behaviour of fj::deque: every pushed item is taken exactly once, by the owner or by one thief,
// under single producer/consumer, stampede, growth and starvation scenarios. Each test runs in both fence
// modes (asymmetric where the platform allows it, and symmetric); a TSan build runs its fence-free mode
// twice. Threads outnumber the cores on purpose: preemption at every point is what finds ordering bugs.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "forkjoin/ext/deque.hpp"
#include "support/test_config.hpp"

namespace {

using fj::deque;
using fj::deque_fences;
using fj::steal_status;

// The items travel as pointers to plain (non-atomic) records that the owner fills in just before the push and
// the taker updates: the deque's orders must make those accesses race-free, which ThreadSanitizer checks.
struct record {
  std::uint64_t id;     // written by the owner before the push
  std::uint32_t taken;  // incremented by whoever takes the item
};

class tally {
 public:
  explicit tally(std::uint64_t n) : n_(n), records_(std::make_unique<record[]>(n)) {}

  // Owner: fill in item i and return what to push.
  record* publish(std::uint64_t i) {
    records_[i].id = i;
    return &records_[i];
  }

  void take(record* r) {
    if (r < records_.get() || r >= records_.get() + n_ ||
        r->id != static_cast<std::uint64_t>(r - records_.get())) {
      // relaxed: read after the joins.
      corrupt_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    ++r->taken;
  }

  void expect_each_taken_once() const {
    std::uint64_t missing = 0;
    std::uint64_t duplicated = 0;
    for (std::uint64_t i = 0; i < n_; ++i) {
      missing += records_[i].taken == 0 ? 1 : 0;
      duplicated += records_[i].taken > 1 ? 1 : 0;
    }
    EXPECT_EQ(missing, 0U) << "items never taken";
    EXPECT_EQ(duplicated, 0U) << "items taken more than once";
    // relaxed: all writers have been joined.
    EXPECT_EQ(corrupt_.load(std::memory_order_relaxed), 0U) << "items taken with an unpublished record";
  }

 private:
  std::uint64_t n_;
  std::unique_ptr<record[]> records_;
  std::atomic<std::uint64_t> corrupt_{0};
};

struct thief_stats {
  std::uint64_t successes = 0;
  std::uint64_t lost_races = 0;
};

// Steals until `stop` is set and the deque looks empty; counts what it gets.
void steal_until_done(fj::deque_thief<record*> thief, tally& items, const std::atomic<bool>& stop,
                      thief_stats& stats) {
  for (;;) {
    const auto r = thief.steal();
    if (r.status == steal_status::success) {
      items.take(r.value);
      ++stats.successes;
    } else if (r.status == steal_status::lost_race) {
      ++stats.lost_races;
    } else {
      // acquire: pairs with the owner's release store of stop; everything it pushed is then visible.
      if (stop.load(std::memory_order_acquire) && thief.empty()) {
        return;
      }
      std::this_thread::yield();
    }
  }
}

// Starts `thieves` threads running steal_until_done on `d`, each with its own entry of `stats`.
std::vector<std::thread> start_thieves(deque<record*>& d, int thieves, tally& items,
                                       const std::atomic<bool>& stop, std::vector<thief_stats>& stats) {
  stats.resize(static_cast<std::size_t>(thieves));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(thieves));
  for (int i = 0; i < thieves; ++i) {
    threads.emplace_back(steal_until_done, d.thief(), std::ref(items), std::cref(stop),
                         std::ref(stats[static_cast<std::size_t>(i)]));
  }
  return threads;
}

// The deque's fence mode, and whether the owner thread binds itself (deque_owner::bind_thread): then, where
// the platform allows it, a thief's membarrier interrupts the owner's core alone, as in a pool.
struct stress_mode {
  deque_fences fences;
  bool bind_owner;
};

// Binds the owner's thread for the scope of one test body, if the mode asks for it.
template <class Owner>
class owner_binding {
 public:
  owner_binding(Owner owner, const stress_mode& mode) : owner_(owner), bound_(mode.bind_owner) {
    if (bound_) owner_.bind_thread();
  }
  owner_binding(const owner_binding&) = delete;
  owner_binding& operator=(const owner_binding&) = delete;
  ~owner_binding() {
    if (bound_) owner_.unbind_thread();
  }

 private:
  Owner owner_;
  bool bound_;
};

class DequeStress : public ::testing::TestWithParam<stress_mode> {};

INSTANTIATE_TEST_SUITE_P(FenceModes, DequeStress,
                         ::testing::Values(stress_mode{deque_fences::automatic, false},
                                           stress_mode{deque_fences::automatic, true},
                                           stress_mode{deque_fences::symmetric, false}),
                         [](const ::testing::TestParamInfo<stress_mode>& mode) {
                           if (mode.param.fences == deque_fences::symmetric) return std::string("Symmetric");
                           return std::string(mode.param.bind_owner ? "AutomaticBoundOwner" : "Automatic");
                         });

TEST_P(DequeStress, SingleThiefStealsEveryPushedItemInOrder) {
  const std::uint64_t n = fj::test::scaled(200'000, 1'000);
  deque<std::uint64_t> d(64, GetParam().fences);
  std::atomic<bool> failed{false};
  std::thread consumer([&, thief = d.thief()]() mutable {
    std::uint64_t expected = 0;
    while (expected < n) {
      const auto r = thief.steal();
      if (r.status == steal_status::success) {
        if (r.value != expected) {
          // relaxed: read after the join.
          failed.store(true, std::memory_order_relaxed);
          return;
        }
        ++expected;
      } else {
        // With one thief and an owner that never pops, nobody else can win the CAS on top.
        if (r.status == steal_status::lost_race) {
          failed.store(true, std::memory_order_relaxed);
          return;
        }
        std::this_thread::yield();
      }
    }
  });
  auto owner = d.owner();
  const owner_binding binding(owner, GetParam());
  for (std::uint64_t i = 0; i < n; ++i) {
    owner.push(i);
    if (i % 1024 == 0) {
      std::this_thread::yield();
    }
  }
  consumer.join();
  EXPECT_FALSE(failed.load(std::memory_order_relaxed));
  EXPECT_TRUE(owner.empty());
}

// The owner pushes and pops at random while `thieves` threads steal; every item must be taken exactly once.
void stampede(const stress_mode& mode, int thieves, std::uint64_t n, std::size_t initial_capacity) {
  deque<record*> d(initial_capacity, mode.fences);
  tally items(n);
  std::atomic<bool> stop{false};
  std::vector<thief_stats> stats;
  std::vector<std::thread> threads = start_thieves(d, thieves, items, stop, stats);

  std::mt19937_64 rng(fj::test::seed() + static_cast<std::uint64_t>(thieves));
  std::uniform_int_distribution<int> action(0, 9);
  auto owner = d.owner();
  const owner_binding binding(owner, mode);
  std::uint64_t owner_pops = 0;
  for (std::uint64_t next = 0; next < n;) {
    const int a = action(rng);
    if (a < 6) {
      owner.push(items.publish(next++));
    } else if (a < 9) {
      if (const auto v = owner.pop()) {
        items.take(*v);
        ++owner_pops;
      }
    } else {
      // A burst of pushes makes the deque long (and grow); a burst of pops runs it dry against the thieves.
      const int burst = action(rng) * 8;
      for (int k = 0; k < burst && next < n; ++k) {
        owner.push(items.publish(next++));
      }
    }
  }
  while (const auto v = owner.pop()) {
    items.take(*v);
    ++owner_pops;
  }
  // release: pairs with the acquire load of stop in steal_until_done().
  stop.store(true, std::memory_order_release);
  for (auto& t : threads) {
    t.join();
  }
  items.expect_each_taken_once();
  std::uint64_t stolen = 0;
  for (const auto& s : stats) {
    stolen += s.successes;
  }
  EXPECT_EQ(stolen + owner_pops, n);
}

TEST_P(DequeStress, StampedeWithOneThiefTakesEachItemExactlyOnce) {
  stampede(GetParam(), 1, fj::test::scaled(1'000'000, 2'000), 1024);
}

TEST_P(DequeStress, StampedeWithThreeThievesTakesEachItemExactlyOnce) {
  stampede(GetParam(), 3, fj::test::scaled(1'000'000, 2'000), 1024);
}

TEST_P(DequeStress, StampedeWithSevenThievesTakesEachItemExactlyOnce) {
  stampede(GetParam(), 7, fj::test::scaled(600'000, 2'000), 1024);
}

TEST_P(DequeStress, StampedeWithFifteenThievesTakesEachItemExactlyOnce) {
  stampede(GetParam(), 15, fj::test::scaled(600'000, 2'000), 1024);
}

TEST_P(DequeStress, GrowthUnderConcurrentStealsLosesNoItem) {
  // Capacity 1 makes the first pushes grow the buffer again and again while thieves read the old ones.
  for (int round = 0; round < 20; ++round) {
    stampede(GetParam(), 3, fj::test::scaled(20'000, 500), 1);
  }
}

TEST_P(DequeStress, LastItemRaceHasExactlyOneWinner) {
  // One item at a time: the owner pushes it and immediately pops while thieves steal, so almost every item is
  // decided by the CAS on top between pop and steal.
  const std::uint64_t n = fj::test::scaled(1'000'000, 2'000);
  deque<record*> d(2, GetParam().fences);
  tally items(n);
  std::atomic<bool> stop{false};
  std::vector<thief_stats> stats(2);
  std::thread t1(steal_until_done, d.thief(), std::ref(items), std::cref(stop), std::ref(stats[0]));
  std::thread t2(steal_until_done, d.thief(), std::ref(items), std::cref(stop), std::ref(stats[1]));
  auto owner = d.owner();
  const owner_binding binding(owner, GetParam());
  for (std::uint64_t i = 0; i < n; ++i) {
    owner.push(items.publish(i));
    if (const auto v = owner.pop()) {
      items.take(*v);
    }
  }
  // release: pairs with the acquire load of stop in steal_until_done().
  stop.store(true, std::memory_order_release);
  t1.join();
  t2.join();
  items.expect_each_taken_once();
}

TEST_P(DequeStress, OwnerDrainingBurstsRacesABusyThiefWithoutDuplicates) {
  // The store-buffering window of pop against steal: the owner pushes a short burst and pops it all back
  // while a thief that rarely yields steals from the other end, so the two meet near the last items again and
  // again. Dropping the fence in pop or in steal makes this test fail within a run or two on x86-64.
  const std::uint64_t n = fj::test::scaled(4'000'000, 4'000);
  deque<record*> d(16, GetParam().fences);
  tally items(n);
  std::atomic<bool> stop{false};
  std::thread thief_thread([&, thief = d.thief()]() mutable {
    std::uint32_t misses = 0;
    // acquire: pairs with the owner's release store of stop; the owner drained the deque before it.
    while (!stop.load(std::memory_order_acquire)) {
      if (const auto r = thief.steal()) {
        items.take(r.value);
      } else if (++misses % 1024 == 0) {
        std::this_thread::yield();
      }
    }
  });
  std::mt19937_64 rng(fj::test::seed());
  std::uniform_int_distribution<std::uint64_t> burst(1, 16);
  auto owner = d.owner();
  const owner_binding binding(owner, GetParam());
  for (std::uint64_t next = 0; next < n;) {
    for (std::uint64_t k = burst(rng); k > 0 && next < n; --k) {
      owner.push(items.publish(next++));
    }
    while (const auto v = owner.pop()) {
      items.take(*v);
    }
  }
  // release: pairs with the thief's acquire load of stop.
  stop.store(true, std::memory_order_release);
  thief_thread.join();
  items.expect_each_taken_once();
}

// pop_discard, which every fork's final suspend uses, under thieves: the owner keeps its own list of what it
// pushed and, when pop_discard says it took the bottom item, counts the newest item of that list as taken by
// itself; when it says the deque was empty, thieves took everything left. The deque starts with room for one
// item, so it grows while thieves steal. Every item must be taken exactly once (found missing in review).
void pop_discard_against_thieves(const stress_mode& mode, int thieves, std::uint64_t n) {
  deque<record*> d(1, mode.fences);
  tally items(n);
  std::atomic<bool> stop{false};
  std::vector<thief_stats> stats;
  std::vector<std::thread> threads = start_thieves(d, thieves, items, stop, stats);
  auto owner = d.owner();
  const owner_binding binding(owner, mode);
  std::vector<record*> pushed;  // what the owner pushed and has not seen taken, oldest first
  std::mt19937_64 rng(fj::test::seed());
  std::uint64_t next = 0;
  while (next < n || !pushed.empty()) {
    if (next < n && (pushed.empty() || rng() % 3 != 0)) {
      for (std::uint64_t burst = rng() % 7 + 1; burst > 0 && next < n; --burst) {
        record* const r = items.publish(next++);
        owner.push(r);
        pushed.push_back(r);
      }
    } else if (owner.pop_discard()) {
      items.take(pushed.back());
      pushed.pop_back();
    } else {
      pushed.clear();  // the deque was empty: thieves took every item still listed
    }
  }
  // release: pairs with the thieves' acquire load of stop.
  stop.store(true, std::memory_order_release);
  for (auto& th : threads) th.join();
  items.expect_each_taken_once();
}

TEST_P(DequeStress, PopDiscardAgainstOneThiefTakesEachItemExactlyOnce) {
  pop_discard_against_thieves(GetParam(), 1, fj::test::scaled(1'000'000, 20'000));
}

TEST_P(DequeStress, PopDiscardAgainstThreeThievesTakesEachItemExactlyOnce) {
  pop_discard_against_thieves(GetParam(), 3, fj::test::scaled(500'000, 10'000));
}

// steal(before_claim), as the runtime uses it (stack.md "Where a frame lives"): the owner publishes an epoch
// in an atomic of its own and changes it only after a pop that returned nothing; each item records the epoch
// of its push. A thief reads the epoch in before_claim; for every item it steals, that must be the item's
// epoch: not older (the push happens before the claim) and not newer (the failed pop acquires the claim).
void before_claim_reads_the_owner_state_of_the_push(const stress_mode& mode, int thieves, std::uint64_t n) {
  struct item {
    std::uint64_t epoch;  // written by the owner before the push
  };
  deque<item*> d(2, mode.fences);
  auto items = std::make_unique<item[]>(n + 1);
  std::atomic<std::uint64_t> epoch{1};
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> stolen{0};
  std::atomic<std::uint64_t> wrong{0};
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(thieves));
  for (int i = 0; i < thieves; ++i) {
    threads.emplace_back([&, thief = d.thief()]() mutable {
      // acquire: pairs with the release store of stop below.
      while (!stop.load(std::memory_order_acquire)) {
        std::uint64_t seen = 0;
        // relaxed: the deque orders it (the property under test).
        auto const r = thief.steal([&]() noexcept { seen = epoch.load(std::memory_order_relaxed); });
        if (!r) continue;
        // relaxed: counters read after the joins.
        stolen.fetch_add(1, std::memory_order_relaxed);
        if (seen != r.value->epoch) wrong.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  auto owner = d.owner();
  const owner_binding binding(owner, mode);
  std::mt19937_64 rng(fj::test::seed());
  std::uint64_t next = 0;
  std::uint64_t current = 1;
  while (next < n) {
    for (std::uint64_t burst = rng() % 5 + 1; burst > 0 && next < n; --burst) {
      items[next].epoch = current;
      owner.push(&items[next++]);
    }
    for (std::uint64_t pops = rng() % 6; pops > 0; --pops) {
      if (!owner.pop_discard()) {
        // relaxed: the deque orders it for thieves.
        epoch.store(++current, std::memory_order_relaxed);
        break;
      }
    }
  }
  // One more item, and whatever is left, for the thieves: some steals happen however fast the owner was.
  items[n].epoch = current;
  owner.push(&items[n]);
  while (!owner.empty()) std::this_thread::yield();
  // release: pairs with the thieves' acquire load of stop.
  stop.store(true, std::memory_order_release);
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0U) << "of " << stolen.load() << " steals";
  EXPECT_GT(stolen.load(), 0U);
}

TEST_P(DequeStress, BeforeClaimReadsTheOwnerStateOfThePushAgainstOneThief) {
  before_claim_reads_the_owner_state_of_the_push(GetParam(), 1, fj::test::scaled(1'000'000, 20'000));
}

TEST_P(DequeStress, BeforeClaimReadsTheOwnerStateOfThePushAgainstThreeThieves) {
  before_claim_reads_the_owner_state_of_the_push(GetParam(), 3, fj::test::scaled(500'000, 10'000));
}

TEST_P(DequeStress, ThiefEventuallySucceedsWhileOwnerKeepsWorking) {
  // No starvation: the owner never stops pushing and popping, yet a thief must get an item.
  deque<std::uint64_t> d(1024, GetParam().fences);
  std::atomic<bool> got_one{false};
  std::thread thief_thread([&, thief = d.thief()]() mutable {
    for (;;) {
      if (thief.steal()) {
        // release: pairs with the owner's acquire load.
        got_one.store(true, std::memory_order_release);
        return;
      }
      std::this_thread::yield();
    }
  });
  auto owner = d.owner();
  const owner_binding binding(owner, GetParam());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::uint64_t next = 0;
  // acquire: pairs with the thief's release store.
  while (!got_one.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < deadline) {
    owner.push(next++);
    owner.push(next++);
    (void)owner.pop();
    if (next % 4096 == 0) {
      while (owner.pop()) {
      }
    }
  }
  const bool succeeded = got_one.load(std::memory_order_acquire);
  if (!succeeded) {
    // Let the thief finish so that the thread can be joined.
    owner.push(next);
  }
  thief_thread.join();
  EXPECT_TRUE(succeeded) << "a thief was starved for 60 s while the owner kept pushing";
}

}  // namespace
