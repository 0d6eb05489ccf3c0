// FJ_SERIAL_ELISION=1 (include/forkjoin/scope.hpp): every spawn runs its call at once, on any pool and on an
// ordinary thread, so a program runs its plain spawns in the serial program's order (Cilk's serial elision),
// while results, the implicit sync and the exceptions (kept for the sync) behave as without it. The macro is
// defined before the first include, as a user building the serial baseline would on the command line; this
// program is the only translation unit that includes scope.hpp.

#define FJ_SERIAL_ELISION 1

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/fib.hpp"
#include "support/spawn_fib.hpp"

namespace {

static_assert(fj::detail::serial_elision, "this test must be built with serial elision");

using fj::test::spawn_fib;

void record_tree(std::vector<int>* order, int v, int depth) {
  order->push_back(v);
  if (depth == 0) return;
  fj::scope s;
  s.spawn(record_tree, order, 2 * v, depth - 1);
  order->push_back(-v);
  s.spawn(record_tree, order, 2 * v + 1, depth - 1);
}

// The serial order of record_tree(1, 2): the node, its left subtree, its negation, its right subtree.
std::vector<int> serial_order() { return {1, 2, 4, -2, 5, -1, 3, 6, -3, 7}; }

TEST(SerialElision, SpawnsRunInProgramOrderOnAPoolOfSeveralWorkers) {
  fj::busy_pool pool(4);
  for (int i = 0; i < 20; ++i) {
    std::vector<int> order;
    fj::sync_wait(pool, record_tree, &order, 1, 2);
    EXPECT_EQ(order, serial_order());
  }
  EXPECT_EQ(fj::sync_wait(pool, spawn_fib, 20), fj::test::fib_value(20));
  std::uint64_t steals = 0;
  for (const auto& w : pool.stats()) steals += w.steals;
  EXPECT_EQ(steals, 0u) << "a spawned call was queued and stolen";
}

TEST(SerialElision, SpawnsOnAnOrdinaryThreadRunOnThatThread) {
  std::vector<int> order;
  record_tree(&order, 1, 2);
  EXPECT_EQ(order, serial_order());
  std::thread::id ran_on;
  {
    fj::scope s;
    s.spawn([&ran_on] { ran_on = std::this_thread::get_id(); });
  }
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

struct child_error : std::runtime_error {
  explicit child_error(int v) : std::runtime_error("child_error"), value(v) {}
  int value;
};

void throw_void(int v) { throw child_error(v); }

TEST(SerialElision, TheFirstExceptionWaitsForTheSync) {
  fj::busy_pool pool(2);
  auto const got = fj::sync_wait(pool, [] {
    bool went_on = false;
    fj::scope s;
    s.spawn(throw_void, 1);
    went_on = true;
    s.spawn(throw_void, 2);
    try {
      s.sync();
    } catch (const child_error& e) {
      return went_on ? e.value : -1;
    }
    return 0;
  });
  EXPECT_EQ(got, 1);
  std::uint64_t dropped = 0;
  for (const auto& w : pool.stats()) dropped += w.exceptions_dropped;
  EXPECT_EQ(dropped, 1u);
}

}  // namespace
