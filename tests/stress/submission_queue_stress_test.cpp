// Concurrent behaviour of fj::submission_queue: 4-8 producers against one consumer, every item received
// exactly once and each producer's items in push order; recycled items (the ABA case); and the consumer
// sleeping on an event count, woken by the pusher that push() reports as having found the queue empty.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "forkjoin/ext/event_count.hpp"
#include "forkjoin/ext/submission_queue.hpp"
#include "support/test_config.hpp"

namespace {

using fj::submission_queue;

// Plain fields, written by the producer before push and read by the consumer after pop: the queue's
// release/acquire must make that race-free (ThreadSanitizer checks).
struct item {
  item* next = nullptr;
  std::uint32_t producer = 0;
  std::uint64_t seq = 0;
  std::uint64_t check = 0;             // a function of (producer, seq): catches torn or stale items
  std::atomic<bool> in_flight{false};  // recycling test only: set by the producer, cleared by the consumer
};

std::uint64_t check_of(std::uint32_t producer, std::uint64_t seq) {
  return (seq * 0x9e3779b97f4a7c15ULL) ^ (std::uint64_t{producer} << 56) ^ 0x5bd1e995ULL;
}

// Per-producer bookkeeping of the consumer: the next sequence number it expects from each producer.
class receiver {
 public:
  explicit receiver(std::size_t producers) : next_(producers, 0) {}

  void take(const item* it) {
    ++received_;
    if (it->producer >= next_.size() || it->check != check_of(it->producer, it->seq)) {
      ++corrupt_;
      return;
    }
    if (it->seq != next_[it->producer]) {
      ++out_of_order_;  // a duplicate, a gap or a reordering
    }
    next_[it->producer] = it->seq + 1;
  }

  void expect_all(std::uint64_t per_producer) const {
    EXPECT_EQ(corrupt_, 0U);
    EXPECT_EQ(out_of_order_, 0U) << "items duplicated, lost or out of per-producer order";
    for (std::size_t p = 0; p < next_.size(); ++p) {
      EXPECT_EQ(next_[p], per_producer) << "producer " << p;
    }
    EXPECT_EQ(received_, per_producer * next_.size());
  }

  [[nodiscard]] std::uint64_t received() const { return received_; }

 private:
  std::vector<std::uint64_t> next_;
  std::uint64_t received_ = 0;
  std::uint64_t corrupt_ = 0;
  std::uint64_t out_of_order_ = 0;
};

void random_pause(std::mt19937_64& rng) {
  if (rng() % 16 == 0) {
    std::this_thread::yield();
  }
}

class SubmissionQueueProducers : public ::testing::TestWithParam<int> {};

INSTANTIATE_TEST_SUITE_P(Producers, SubmissionQueueProducers, ::testing::Values(4, 8),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return std::to_string(p.param) + "Producers";
                         });

// scaled(10^5) distinct items per producer; the consumer polls (pop, yield when empty).
TEST_P(SubmissionQueueProducers, EveryItemArrivesOnceAndInEachProducersOrder) {
  const auto producers = static_cast<std::size_t>(GetParam());
  const std::uint64_t per_producer = fj::test::scaled(100'000, 5'000);
  std::vector<std::unique_ptr<item[]>> items;
  items.reserve(producers);
  for (std::size_t p = 0; p < producers; ++p) {
    items.push_back(std::make_unique<item[]>(per_producer));
  }
  submission_queue<item> q;
  receiver got(producers);
  std::atomic<std::uint64_t> reported_empty{0};
  std::vector<std::thread> threads;
  threads.reserve(producers);
  for (std::size_t p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      std::mt19937_64 rng(fj::test::seed() + p);
      for (std::uint64_t s = 0; s < per_producer; ++s) {
        item& it = items[p][s];
        it.producer = static_cast<std::uint32_t>(p);
        it.seq = s;
        it.check = check_of(it.producer, s);
        if (q.push(&it)) {
          // relaxed: a statistic.
          reported_empty.fetch_add(1, std::memory_order_relaxed);
        }
        random_pause(rng);
      }
    });
  }
  const std::uint64_t total = per_producer * producers;
  while (got.received() < total) {
    if (item* it = q.pop()) {
      got.take(it);
    } else {
      std::this_thread::yield();
    }
  }
  for (std::thread& t : threads) {
    t.join();
  }
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.pop(), nullptr);
  got.expect_all(per_producer);
  // relaxed: read after the joins.
  EXPECT_GE(reported_empty.load(std::memory_order_relaxed), 1U);
}

// Each producer owns only 3 items and pushes them again as soon as the consumer hands them back, so the same
// addresses reach the head of the queue over and over: a CAS that succeeded against a recycled head (ABA)
// must still leave a correct list.
TEST_P(SubmissionQueueProducers, RecycledItemsStillArriveOnceAndInOrder) {
  const auto producers = static_cast<std::size_t>(GetParam());
  const std::uint64_t per_producer = fj::test::scaled(100'000, 5'000);
  constexpr std::size_t own = 3;
  std::vector<std::unique_ptr<item[]>> items;
  items.reserve(producers);
  for (std::size_t p = 0; p < producers; ++p) {
    items.push_back(std::make_unique<item[]>(own));
  }
  submission_queue<item> q;
  receiver got(producers);
  std::vector<std::thread> threads;
  threads.reserve(producers);
  for (std::size_t p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      std::mt19937_64 rng(fj::test::seed() * 7 + p);
      for (std::uint64_t s = 0; s < per_producer; ++s) {
        item& it = items[p][s % own];
        // acquire: pairs with the consumer's release store: its reads of the item are done.
        while (it.in_flight.load(std::memory_order_acquire)) {
          std::this_thread::yield();
        }
        // relaxed: published by the push's release CAS.
        it.in_flight.store(true, std::memory_order_relaxed);
        it.producer = static_cast<std::uint32_t>(p);
        it.seq = s;
        it.check = check_of(it.producer, s);
        (void)q.push(&it);
        random_pause(rng);
      }
    });
  }
  const std::uint64_t total = per_producer * producers;
  while (got.received() < total) {
    if (item* it = q.pop()) {
      got.take(it);
      // release: pairs with the producer's acquire load: hands the item back.
      it->in_flight.store(false, std::memory_order_release);
    } else {
      std::this_thread::yield();
    }
  }
  for (std::thread& t : threads) {
    t.join();
  }
  EXPECT_TRUE(q.empty());
  got.expect_all(per_producer);
}

// The runtime's use: the consumer sleeps on an event count when its queue is empty (prepare_wait, re-check
// empty(), wait) and a pusher notifies only when push() says the queue was empty. A lost wake-up leaves the
// consumer asleep with items queued; the watchdog then aborts with a message.
TEST_P(SubmissionQueueProducers, SleepingConsumerIsWokenByThePusherThatFoundTheQueueEmpty) {
  const auto producers = static_cast<std::size_t>(GetParam());
  const std::uint64_t per_producer = fj::test::scaled(100'000, 5'000) / 4;
  std::vector<std::unique_ptr<item[]>> items;
  items.reserve(producers);
  for (std::size_t p = 0; p < producers; ++p) {
    items.push_back(std::make_unique<item[]>(per_producer));
  }
  submission_queue<item> q;
  fj::event_count ec;
  receiver got(producers);
  std::atomic<std::uint64_t> progress{0};
  std::atomic<bool> done{false};
  std::thread dog([&] {
    std::uint64_t last = ~std::uint64_t{0};
    auto since = std::chrono::steady_clock::now();
    // acquire: pairs with the release store after the consumer loop.
    while (!done.load(std::memory_order_acquire)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      // relaxed: only watched for movement.
      const std::uint64_t now = progress.load(std::memory_order_relaxed);
      if (now != last) {
        last = now;
        since = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - since > std::chrono::seconds(30)) {
        std::fprintf(stderr, "watchdog: consumer stuck at %llu items: lost wake-up?\n",
                     static_cast<unsigned long long>(now));
        std::abort();
      }
    }
  });
  std::vector<std::thread> threads;
  threads.reserve(producers);
  for (std::size_t p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      std::mt19937_64 rng(fj::test::seed() * 13 + p);
      for (std::uint64_t s = 0; s < per_producer; ++s) {
        item& it = items[p][s];
        it.producer = static_cast<std::uint32_t>(p);
        it.seq = s;
        it.check = check_of(it.producer, s);
        if (q.push(&it)) {
          ec.notify_one();
        }
        // Bursts and gaps, so that the consumer often drains the queue and goes to sleep.
        if (rng() % 64 == 0) {
          std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
      }
    });
  }
  const std::uint64_t total = per_producer * producers;
  std::uint64_t sleeps = 0;
  while (got.received() < total) {
    if (item* it = q.pop()) {
      got.take(it);
      // relaxed: only watched for movement.
      progress.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    const fj::event_count::key k = ec.prepare_wait();
    if (!q.empty()) {
      ec.cancel_wait();
      continue;
    }
    ec.wait(k);
    ++sleeps;
  }
  // release: pairs with the watchdog's acquire load.
  done.store(true, std::memory_order_release);
  dog.join();
  for (std::thread& t : threads) {
    t.join();
  }
  got.expect_all(per_producer);
  std::printf("[submission_queue] %zu producers, %llu items, consumer slept %llu times\n", producers,
              static_cast<unsigned long long>(total), static_cast<unsigned long long>(sleeps));
}

}  // namespace
