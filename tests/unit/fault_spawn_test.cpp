// A child that cannot be created (its argument's copy throws, or its frame cannot be allocated) fails in the
// parent's body, before the co_await of fj::fork / fj::call suspends: an ordinary exception in the parent.
// The children the parent already forked must still finish before the parent's frame goes away and the
// exception reaches sync_wait (they write into that frame).

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <thread>

#include "support/test_config.hpp"

namespace {

struct copy_failed : std::runtime_error {
  copy_failed() : std::runtime_error("copy failed") {}
};

// Copies fine until told otherwise.
struct breakable {
  bool broken = false;
  breakable() = default;
  explicit breakable(bool b) : broken(b) {}
  breakable(const breakable& other) : broken(other.broken) {
    if (broken) throw copy_failed();
  }
  breakable& operator=(const breakable&) = delete;
};

fj::task<int> slow_child(std::atomic<int>* finished) {
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  finished->fetch_add(1, std::memory_order_relaxed);  // relaxed: read after sync_wait returns
  co_return 1;
}

fj::task<int> takes_breakable(breakable b) { co_return b.broken ? 1 : 0; }

fj::task<void> forks_then_copy_fails(std::atomic<int>* finished, int n, const breakable* arg) {
  int results[8] = {};
  for (int i = 0; i < n; ++i) co_await fj::fork(&results[i], slow_child, finished);
  int last = 0;
  co_await fj::fork(&last, takes_breakable, *arg);  // the copy into the parameter throws here
  co_await fj::join;
}

TEST(SpawnFailure, AThrowingArgumentCopyFailsInTheParentAfterItsForkedChildrenFinish) {
  fj::busy_pool pool(4);
  breakable const broken(true);
  for (int rep = 0; rep < 10; ++rep) {
    std::atomic<int> finished{0};
    EXPECT_THROW(fj::sync_wait(pool, forks_then_copy_fails, &finished, 8, &broken), copy_failed);
    EXPECT_EQ(finished.load(), 8);
  }
  breakable const fine(false);
  std::atomic<int> finished{0};
  fj::sync_wait(pool, forks_then_copy_fails, &finished, 8, &fine);
  EXPECT_EQ(finished.load(), 8);
}

fj::task<void> touch(unsigned char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 4096) p[i] = static_cast<unsigned char>(i / 4096 + 1);
  co_return;
}

// Its frame holds the array (a child writes it across a suspension): over 64 KiB.
fj::task<int> big_frame() {
  std::array<unsigned char, std::size_t{64} * 1024> bytes{};
  co_await fj::call(touch, bytes.data(), bytes.size());
  co_await fj::join;
  co_return bytes[4096];
}

// The frame of big_frame does not fit the budget: its allocation fails like a std::bad_alloc would.
fj::task<void> forks_then_allocation_fails(std::atomic<int>* finished, int n) {
  int results[8] = {};
  for (int i = 0; i < n; ++i) co_await fj::fork(&results[i], slow_child, finished);
  int last = 0;
  co_await fj::call(&last, big_frame);
  co_await fj::join;
}

TEST(SpawnFailure, AFrameThatCannotBeAllocatedFailsInTheParentAfterItsForkedChildrenFinish) {
  fj::pool_options o;
  o.workers = 4;
  o.stack_budget = std::size_t{32} * 1024;
  fj::busy_pool pool(o);
  for (int rep = 0; rep < 10; ++rep) {
    std::atomic<int> finished{0};
    EXPECT_THROW(fj::sync_wait(pool, forks_then_allocation_fails, &finished, 8), fj::stack_budget_error);
    EXPECT_EQ(finished.load(), 8);
  }
}

}  // namespace
