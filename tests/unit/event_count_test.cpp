// Behaviour of fj::event_count with few threads: registration bookkeeping, wake after notify, cancel, and the
// visibility of what the notifier published. Races over many cycles are in
// tests/stress/event_count_stress_test.cpp.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

#include "forkjoin/ext/event_count.hpp"

namespace {

using fj::event_count;

static_assert(!std::is_default_constructible_v<event_count::key>, "keys come only from prepare_wait()");
static_assert(!std::is_copy_constructible_v<event_count>);
static_assert(!std::is_move_constructible_v<event_count>);

// Spins (yielding) until the event count has `n` registered waiters: the waiting threads are then between
// prepare_wait() and the end of wait(), most likely asleep.
void wait_for_waiters(const event_count& ec, std::uint32_t n) {
  while (ec.waiters() < n) {
    std::this_thread::yield();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

TEST(EventCount, NewEventCountHasNoWaiters) {
  event_count ec;
  EXPECT_EQ(ec.waiters(), 0U);
}

TEST(EventCount, PrepareWaitRegistersAndCancelWaitWithdraws) {
  event_count ec;
  const event_count::key k = ec.prepare_wait();
  (void)k;
  EXPECT_EQ(ec.waiters(), 1U);
  ec.cancel_wait();
  EXPECT_EQ(ec.waiters(), 0U);
}

TEST(EventCount, NotifyWithoutWaitersDoesNotBlock) {
  event_count ec;
  ec.notify_one();
  ec.notify_all();
  EXPECT_EQ(ec.waiters(), 0U);
}

TEST(EventCount, WaitReturnsAtOnceWhenANotifyFollowedPrepareWait) {
  event_count ec;
  const event_count::key k = ec.prepare_wait();
  ec.notify_one();
  ec.wait(k);  // must not block: the epoch moved after k was taken
  EXPECT_EQ(ec.waiters(), 0U);
}

TEST(EventCount, NotifyBeforePrepareWaitIsNotRememberedByTheKey) {
  event_count ec;
  ec.notify_all();
  const event_count::key k = ec.prepare_wait();
  // A wait(k) now would sleep; the protocol's re-check is what catches a notify that came first.
  ec.cancel_wait();
  ec.notify_one();
  const event_count::key later = ec.prepare_wait();
  ec.notify_one();
  ec.wait(later);
  (void)k;
  EXPECT_EQ(ec.waiters(), 0U);
}

TEST(EventCount, AwaitReturnsWithoutSleepingWhenAlreadyReady) {
  event_count ec;
  int calls = 0;
  ec.await([&] {
    ++calls;
    return true;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(ec.waiters(), 0U);
}

TEST(EventCount, SleepingWaiterWakesAfterNotifyOne) {
  event_count ec;
  std::atomic<bool> ready{false};
  std::thread waiter([&] {
    // acquire: pairs with the release store below.
    ec.await([&] { return ready.load(std::memory_order_acquire); });
  });
  wait_for_waiters(ec, 1);
  // release: pairs with the acquire load in the waiter's condition.
  ready.store(true, std::memory_order_release);
  ec.notify_one();
  waiter.join();
  EXPECT_EQ(ec.waiters(), 0U);
}

TEST(EventCount, NotifyAllWakesEverySleepingWaiter) {
  event_count ec;
  std::atomic<bool> ready{false};
  std::vector<std::thread> waiters;
  waiters.reserve(4);
  for (int i = 0; i < 4; ++i) {
    // acquire: pairs with the release store below.
    waiters.emplace_back([&] { ec.await([&] { return ready.load(std::memory_order_acquire); }); });
  }
  wait_for_waiters(ec, 4);
  // release: pairs with the acquire loads in the waiters' condition.
  ready.store(true, std::memory_order_release);
  ec.notify_all();
  for (std::thread& t : waiters) {
    t.join();
  }
  EXPECT_EQ(ec.waiters(), 0U);
}

TEST(EventCount, EachNotifyOneReleasesOneTokenToSomeSleepingWaiter) {
  event_count ec;
  std::atomic<int> tokens{0};
  const auto take = [&] {
    // relaxed: the counter carries no data; the event count orders the wake-ups.
    int have = tokens.load(std::memory_order_relaxed);
    while (have > 0) {
      // relaxed: as above.
      if (tokens.compare_exchange_weak(have, have - 1, std::memory_order_relaxed,
                                       std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  };
  std::vector<std::thread> waiters;
  waiters.reserve(3);
  for (int i = 0; i < 3; ++i) {
    waiters.emplace_back([&] { ec.await(take); });
  }
  wait_for_waiters(ec, 3);
  for (int i = 0; i < 3; ++i) {
    // relaxed: published by the release RMW of notify_one().
    tokens.fetch_add(1, std::memory_order_relaxed);
    ec.notify_one();
  }
  for (std::thread& t : waiters) {
    t.join();
  }
  EXPECT_EQ(tokens.load(std::memory_order_relaxed), 0);
}

TEST(EventCount, WokenWaiterSeesPlainDataWrittenBeforeTheNotify) {
  event_count ec;
  std::uint64_t payload = 0;  // plain: the event count's release/acquire must order it (TSan checks)
  std::uint64_t seen = 0;
  std::thread waiter([&] {
    // No condition at all: wait() returns only after a notify, and then must show what preceded it.
    const event_count::key k = ec.prepare_wait();
    ec.wait(k);
    seen = payload;
  });
  wait_for_waiters(ec, 1);
  payload = 42;
  ec.notify_one();
  waiter.join();
  EXPECT_EQ(seen, 42U);
}

}  // namespace
