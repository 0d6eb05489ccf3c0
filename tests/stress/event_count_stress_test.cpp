// No lost wake-ups in fj::event_count over many prepare/re-check/wait cycles racing with notifies, at 2, 4
// and 16 threads (16 oversubscribes this machine on purpose: preemption between any two steps is what finds a
// lost wake-up). A lost wake-up shows as a thread asleep forever; a watchdog turns that into a failure with a
// message instead of a hung test.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "forkjoin/ext/event_count.hpp"
#include "support/test_config.hpp"

namespace {

using fj::event_count;

// Aborts the process with a message if `progress` stops moving for `limit` while the watchdog is alive.
class watchdog {
 public:
  watchdog(const std::atomic<std::uint64_t>& progress, const char* what,
           std::chrono::seconds limit = std::chrono::seconds(30))
      : thread_([this, &progress, what, limit] {
          std::uint64_t last = ~std::uint64_t{0};
          auto since = std::chrono::steady_clock::now();
          // acquire: pairs with the release store in the destructor.
          while (!done_.load(std::memory_order_acquire)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            // relaxed: a progress counter; nothing is read through it.
            const std::uint64_t now = progress.load(std::memory_order_relaxed);
            if (now != last) {
              last = now;
              since = std::chrono::steady_clock::now();
            } else if (std::chrono::steady_clock::now() - since > limit) {
              std::fprintf(stderr, "watchdog: no progress in %s for %llds at %llu steps: lost wake-up?\n",
                           what, static_cast<long long>(limit.count()), static_cast<unsigned long long>(now));
              std::abort();
            }
          }
        }) {}
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;
  ~watchdog() {
    // release: pairs with the acquire load in the watchdog thread.
    done_.store(true, std::memory_order_release);
    thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// A random pause of 0 to a few yields, seeded per thread: moves each thread's prepare/re-check/wait against
// the others' notifies.
class jitter {
 public:
  explicit jitter(std::uint64_t seed) : rng_(seed) {}
  void operator()() {
    const auto n = rng_() % 8;
    for (std::uint64_t i = 3; i < n; ++i) {
      std::this_thread::yield();
    }
  }

 private:
  std::mt19937_64 rng_;
};

enum class notify_kind { one, all };

struct ring_params {
  int threads;
  notify_kind kind;
};

class EventCountRing : public ::testing::TestWithParam<ring_params> {};

INSTANTIATE_TEST_SUITE_P(Threads, EventCountRing,
                         ::testing::Values(ring_params{2, notify_kind::one}, ring_params{4, notify_kind::one},
                                           ring_params{16, notify_kind::one},
                                           ring_params{2, notify_kind::all},
                                           ring_params{16, notify_kind::all}),
                         [](const ::testing::TestParamInfo<ring_params>& p) {
                           return std::to_string(p.param.threads) + "Threads" +
                                  (p.param.kind == notify_kind::one ? "NotifyOne" : "NotifyAll");
                         });

// Threads in a ring pass tokens to their right neighbour: "producer sets a flag and notifies" is the pass,
// "consumer prepares, re-checks, waits" is waiting for the next token. Each thread has its own flag (a token
// counter) and event count. threads/2 tokens circulate, so neighbours race: a token often arrives just while
// its receiver is between prepare_wait and wait. In total scaled(10^5) passes, each one a wake-up that must
// not be lost: with one lost, a token stops and the ring stalls (the watchdog fires).
TEST_P(EventCountRing, NoWakeUpIsLostWhilePassingTokensAroundARing) {
  const auto n = static_cast<std::size_t>(GetParam().threads);
  const bool notify_one = GetParam().kind == notify_kind::one;
  const std::uint64_t passes_each = fj::test::scaled(100'000, 2'000) / n;

  struct alignas(64) seat {
    event_count ec;
    std::atomic<std::uint64_t> received{0};
  };
  std::vector<std::unique_ptr<seat>> seats;
  seats.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    seats.push_back(std::make_unique<seat>());
  }
  for (std::size_t i = 0; i < n; i += 2) {
    // relaxed: before the threads start.
    seats[i]->received.store(1, std::memory_order_relaxed);
  }
  std::atomic<std::uint64_t> progress{0};
  std::atomic<std::uint64_t> woke{0};
  {
    watchdog dog(progress, "event count ring");
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (std::size_t t = 0; t < n; ++t) {
      threads.emplace_back([&, t] {
        seat& me = *seats[t];
        seat& right = *seats[(t + 1) % n];
        jitter pause(fj::test::seed() + t);
        std::uint64_t used = 0;
        std::uint64_t right_received = (t + 1) % n % 2 == 0 ? 1 : 0;  // its initial token, if any
        for (std::uint64_t k = 0; k < passes_each; ++k) {
          // Wait for a token: the protocol, written out so that the test can count real sleeps.
          for (;;) {
            // acquire: pairs with the release fetch_add of the left neighbour.
            if (me.received.load(std::memory_order_acquire) > used) {
              break;
            }
            pause();
            const event_count::key key = me.ec.prepare_wait();
            // acquire: as above.
            if (me.received.load(std::memory_order_acquire) > used) {
              me.ec.cancel_wait();
              break;
            }
            me.ec.wait(key);
            // relaxed: a statistic.
            woke.fetch_add(1, std::memory_order_relaxed);
          }
          ++used;
          pause();
          // A plain store, not a read-modify-write (we are the only writer): on x86 a locked RMW here would
          // be a full fence and hide a notify that reads the waiter count too early.
          // release: pairs with the acquire loads of `received` in the right neighbour's wait loop.
          right.received.store(++right_received, std::memory_order_release);
          if (notify_one) {
            right.ec.notify_one();
          } else {
            right.ec.notify_all();
          }
          // relaxed: only watched for movement.
          progress.fetch_add(1, std::memory_order_relaxed);
        }
      });
    }
    for (std::thread& th : threads) {
      th.join();
    }
  }
  EXPECT_EQ(progress.load(std::memory_order_relaxed), passes_each * n);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(seats[i]->ec.waiters(), 0U);
  }
  std::printf("[event_count] %zu threads: %llu passes, %llu returns from wait()\n", n,
              static_cast<unsigned long long>(passes_each) * n,
              static_cast<unsigned long long>(woke.load(std::memory_order_relaxed)));
}

class EventCountLockstep : public ::testing::TestWithParam<int> {};

INSTANTIATE_TEST_SUITE_P(Threads, EventCountLockstep, ::testing::Values(2, 4, 16),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return std::to_string(p.param) + "Threads";
                         });

// Spins until `flag` reaches `value`, yielding after a while so that an oversubscribed run still moves.
void spin_until(const std::atomic<std::uint64_t>& flag, std::uint64_t value) {
  for (int spins = 0;; ++spins) {
    // acquire: pairs with the release store of the other side of the round barrier.
    if (flag.load(std::memory_order_acquire) >= value) {
      return;
    }
    if (spins > 200) {
      std::this_thread::yield();
    }
  }
}

// The race itself, in lockstep: pairs of threads meet at a barrier, then at once the consumer prepares,
// re-checks the flag and waits, while the producer sets the flag and notifies. Meeting first makes the two
// sides overlap as closely as the machine allows, every round (a store-buffering race: a notify that read the
// waiter count before its flag store became visible would miss a consumer that re-checked too early).
// scaled(10^5) rounds in total, spread over threads/2 independent pairs.
TEST_P(EventCountLockstep, ConsumerRacingTheNotifyAlwaysWakes) {
  const auto pairs = static_cast<std::size_t>(GetParam() / 2);
  const std::uint64_t rounds = fj::test::scaled(100'000, 2'000) / pairs;
  struct alignas(64) pair_state {
    event_count ec;
    std::atomic<std::uint64_t> flag{0};         // the round the producer has announced
    std::atomic<std::uint64_t> consumer_at{0};  // round barrier: the round each side has reached
    std::atomic<std::uint64_t> producer_at{0};
  };
  std::vector<std::unique_ptr<pair_state>> state;
  state.reserve(pairs);
  for (std::size_t i = 0; i < pairs; ++i) {
    state.push_back(std::make_unique<pair_state>());
  }
  std::atomic<std::uint64_t> progress{0};
  std::atomic<std::uint64_t> slept{0};
  {
    watchdog dog(progress, "lockstep event count");
    std::vector<std::thread> threads;
    threads.reserve(2 * pairs);
    for (std::size_t i = 0; i < pairs; ++i) {
      pair_state& ps = *state[i];
      threads.emplace_back([&] {
        std::uint64_t sleeps = 0;
        for (std::uint64_t r = 1; r <= rounds; ++r) {
          // release: pairs with the acquire load in the producer's spin_until.
          ps.consumer_at.store(r, std::memory_order_release);
          spin_until(ps.producer_at, r);
          for (;;) {
            const event_count::key key = ps.ec.prepare_wait();
            // acquire: pairs with the producer's release store of flag.
            if (ps.flag.load(std::memory_order_acquire) >= r) {
              ps.ec.cancel_wait();
              break;
            }
            ps.ec.wait(key);
            ++sleeps;
          }
          // relaxed: only watched for movement.
          progress.fetch_add(1, std::memory_order_relaxed);
        }
        // relaxed: read after the joins.
        slept.fetch_add(sleeps, std::memory_order_relaxed);
      });
      threads.emplace_back([&] {
        for (std::uint64_t r = 1; r <= rounds; ++r) {
          // release: pairs with the acquire load in the consumer's spin_until.
          ps.producer_at.store(r, std::memory_order_release);
          spin_until(ps.consumer_at, r);
          // release: pairs with the consumer's acquire load of flag. A store, not an RMW: see the ring test.
          ps.flag.store(r, std::memory_order_release);
          ps.ec.notify_one();
        }
      });
    }
    for (std::thread& t : threads) {
      t.join();
    }
  }
  EXPECT_EQ(progress.load(std::memory_order_relaxed), rounds * pairs);
  std::printf("[event_count] lockstep, %zu pairs: %llu rounds, %llu waits\n", pairs,
              static_cast<unsigned long long>(rounds) * pairs,
              static_cast<unsigned long long>(slept.load(std::memory_order_relaxed)));
}

class EventCountShared : public ::testing::TestWithParam<int> {};

INSTANTIATE_TEST_SUITE_P(Threads, EventCountShared, ::testing::Values(2, 4, 16),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return std::to_string(p.param) + "Threads";
                         });

// The lazy pool's pattern: one event count shared by all sleepers, one notify_one per unit of work. Half the
// threads produce units (a counter) and notify once per unit; the other half take units, sleeping when there
// are none. A lost wake-up leaves a unit untaken while every taker sleeps: the watchdog fires.
TEST_P(EventCountShared, EveryUnitIsTakenWhenEachIsAnnouncedByOneNotifyOne) {
  const int threads = GetParam();
  const int producers = threads / 2;
  const int takers = threads - producers;
  const std::uint64_t per_producer = fj::test::scaled(100'000, 2'000) / static_cast<std::uint64_t>(producers);
  const std::uint64_t total = per_producer * static_cast<std::uint64_t>(producers);

  event_count ec;
  std::atomic<std::uint64_t> available{0};
  std::atomic<std::uint64_t> taken{0};
  const auto try_take = [&] {
    // relaxed: the counters carry no data; the event count orders the wake-ups.
    std::uint64_t have = available.load(std::memory_order_relaxed);
    while (have > 0) {
      // relaxed: as above.
      if (available.compare_exchange_weak(have, have - 1, std::memory_order_relaxed,
                                          std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  };
  {
    watchdog dog(taken, "shared event count");
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(threads));
    for (int p = 0; p < producers; ++p) {
      pool.emplace_back([&, p] {
        jitter pause(fj::test::seed() * 31 + static_cast<std::uint64_t>(p));
        for (std::uint64_t i = 0; i < per_producer; ++i) {
          pause();
          // relaxed: published by notify_one()'s release RMW.
          available.fetch_add(1, std::memory_order_relaxed);
          ec.notify_one();
        }
      });
    }
    for (int c = 0; c < takers; ++c) {
      pool.emplace_back([&] {
        for (;;) {
          // relaxed: a counter; termination only needs the final value.
          if (taken.load(std::memory_order_relaxed) >= total) {
            return;
          }
          bool got = false;
          // The condition: a unit to take, or nothing left to wait for.
          ec.await([&] {
            got = try_take();
            // relaxed: as above.
            return got || taken.load(std::memory_order_relaxed) >= total;
          });
          if (got) {
            // relaxed: as above.
            if (taken.fetch_add(1, std::memory_order_relaxed) + 1 == total) {
              ec.notify_all();  // the last unit: release the other takers
            }
          }
        }
      });
    }
    for (std::thread& t : pool) {
      t.join();
    }
  }
  EXPECT_EQ(taken.load(std::memory_order_relaxed), total);
  EXPECT_EQ(available.load(std::memory_order_relaxed), 0U);
  EXPECT_EQ(ec.waiters(), 0U);
}

// One notifier, many sleepers: every round, every sleeper must wake from one notify_all.
TEST(EventCountBroadcast, EveryWaiterWakesFromEachNotifyAll) {
  constexpr int waiters = 7;
  const std::uint64_t rounds = fj::test::scaled(10'000, 500);
  event_count ec;
  event_count arrived_ec;
  std::atomic<std::uint64_t> round{0};
  std::atomic<std::uint64_t> arrived{0};
  {
    watchdog dog(arrived, "broadcast");
    std::vector<std::thread> pool;
    pool.reserve(waiters);
    for (int w = 0; w < waiters; ++w) {
      pool.emplace_back([&] {
        for (std::uint64_t r = 1; r <= rounds; ++r) {
          // acquire: pairs with the release store of round below.
          ec.await([&] { return round.load(std::memory_order_acquire) >= r; });
          // release: pairs with the acquire load in the notifier's condition.
          arrived.fetch_add(1, std::memory_order_release);
          arrived_ec.notify_one();
        }
      });
    }
    for (std::uint64_t r = 1; r <= rounds; ++r) {
      // release: pairs with the acquire loads in the waiters' condition.
      round.store(r, std::memory_order_release);
      ec.notify_all();
      const std::uint64_t target = r * waiters;
      // acquire: pairs with the release fetch_add of each waiter.
      arrived_ec.await([&] { return arrived.load(std::memory_order_acquire) >= target; });
    }
    for (std::thread& t : pool) {
      t.join();
    }
  }
  EXPECT_EQ(arrived.load(std::memory_order_relaxed), rounds * waiters);
}

}  // namespace
