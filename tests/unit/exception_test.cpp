// Exceptions: a child's exception reaches the parent's join (or sync_wait); the first one wins; a parent that
// throws while children run waits for them before its frame goes away.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "support/test_config.hpp"

namespace {

struct counted_error : std::runtime_error {
  explicit counted_error(int v) : std::runtime_error("counted_error " + std::to_string(v)), value(v) {}
  int value;
};

fj::task<int> throw_if(bool should, int v) {
  if (should) throw counted_error(v);
  co_return v;
}

fj::task<void> root_throws() {
  throw std::logic_error("from the root");
  co_return;
}

TEST(Exceptions, RootExceptionIsRethrownBySyncWait) {
  fj::busy_pool pool(2);
  EXPECT_THROW(fj::sync_wait(pool, root_throws), std::logic_error);
  // The pool is still usable afterwards.
  EXPECT_EQ(fj::sync_wait(pool, throw_if, false, 3), 3);
}

TEST(Exceptions, ForkedChildExceptionIsRethrownAtTheParentsJoin) {
  fj::busy_pool pool(2);
  auto parent = []() -> fj::task<int> {
    int a = 0;
    int b = 0;
    co_await fj::fork(&a, throw_if, true, 1);
    co_await fj::call(&b, throw_if, false, 2);
    try {
      co_await fj::join;
    } catch (const counted_error& e) {
      co_return 100 + e.value;
    }
    co_return -1;
  };
  EXPECT_EQ(fj::sync_wait(pool, parent), 101);
}

TEST(Exceptions, CalledChildExceptionIsRethrownAtTheNextJoin) {
  fj::unit_pool pool;
  auto parent = []() -> fj::task<int> {
    int a = 0;
    co_await fj::call(&a, throw_if, true, 5);
    try {
      co_await fj::join;
    } catch (const counted_error& e) {
      co_return e.value;
    }
    co_return -1;
  };
  EXPECT_EQ(fj::sync_wait(pool, parent), 5);
}

TEST(Exceptions, UncaughtChildExceptionPropagatesThroughEveryAncestor) {
  fj::busy_pool pool(4);
  auto leaf_fails = fj::recursive([](auto self, int depth) -> fj::task<int> {
    if (depth == 0) throw counted_error(42);
    int a = 0;
    co_await fj::fork(&a, self, depth - 1);
    co_await fj::join;
    co_return a;
  });
  try {
    (void)fj::sync_wait(pool, leaf_fails, 30);
    FAIL() << "no exception";
  } catch (const counted_error& e) {
    EXPECT_EQ(e.value, 42);
  }
}

// A task that returns without a join passes its children's exceptions on to its own parent: its final suspend
// must find them however they arrived (from a called child, from a forked child whose parent was not stolen,
// or at a stolen parent's implicit join), although nothing in the body rethrew them.
fj::task<int> returns_without_join(bool fork_it, int v) {
  int a = 0;
  if (fork_it) {
    co_await fj::fork(&a, throw_if, true, v);
  } else {
    co_await fj::call(&a, throw_if, true, v);
  }
  co_return -1;
}

fj::task<int> joins_one(bool fork_it, int v) {
  int a = 0;
  co_await fj::call(&a, returns_without_join, fork_it, v);
  try {
    co_await fj::join;
  } catch (const counted_error& e) {
    co_return e.value;
  }
  co_return a;
}

TEST(Exceptions, ACalledChildsExceptionPassesThroughAParentThatReturnsWithoutAJoin) {
  fj::unit_pool pool;
  EXPECT_EQ(fj::sync_wait(pool, joins_one, false, 11), 11);
  EXPECT_THROW((void)fj::sync_wait(pool, returns_without_join, false, 12), counted_error);
}

TEST(Exceptions, AForkedChildsExceptionPassesThroughAParentThatReturnsWithoutAJoin) {
  fj::unit_pool unit;
  EXPECT_EQ(fj::sync_wait(unit, joins_one, true, 13), 13);
  EXPECT_THROW((void)fj::sync_wait(unit, returns_without_join, true, 14), counted_error);
  // With thieves the parent's continuation is sometimes stolen: the implicit join then finds the exception.
  fj::busy_pool busy(4);
  for (int rep = 0; rep < 200; ++rep) ASSERT_EQ(fj::sync_wait(busy, joins_one, true, rep), rep);
}

TEST(Exceptions, WhenManyChildrenThrowOneIsRethrownAndTheRestAreDropped) {
  fj::busy_pool pool(4);
  auto parent = [](int n) -> fj::task<int> {
    std::vector<int> r(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) co_await fj::fork(&r[static_cast<std::size_t>(i)], throw_if, true, i);
    try {
      co_await fj::join;
    } catch (const counted_error& e) {
      co_return e.value;
    }
    co_return -1;
  };
  for (int rep = 0; rep < 20; ++rep) {
    int const v = fj::sync_wait(pool, parent, 64);
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 64);
  }
  std::uint64_t dropped = 0;
  for (const auto& s : pool.stats()) dropped += s.exceptions_dropped;
  EXPECT_EQ(dropped, 20u * 63u);
}

TEST(Exceptions, AJoinThatRethrewLeavesTheTaskReadyForTheNextScope) {
  fj::busy_pool pool(2);
  auto parent = []() -> fj::task<int> {
    int a = 0;
    co_await fj::fork(&a, throw_if, true, 1);
    bool rethrown = false;
    try {
      co_await fj::join;
    } catch (const counted_error&) {
      rethrown = true;
    }
    if (!rethrown) co_return -1;
    int b = 0;
    co_await fj::fork(&b, throw_if, false, 7);
    co_await fj::join;  // must not rethrow the old exception
    co_return b;
  };
  EXPECT_EQ(fj::sync_wait(pool, parent), 7);
}

// A parent that throws while forked children still run waits for them: they write into its frame.
fj::task<int> slow_child(std::atomic<int>* finished) {
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  finished->fetch_add(1, std::memory_order_relaxed);
  co_return 1;
}

fj::task<void> parent_throws_early(std::atomic<int>* finished, int n) {
  int results[16] = {};
  for (int i = 0; i < n; ++i) co_await fj::fork(&results[i], slow_child, finished);
  throw counted_error(n);
}

TEST(Exceptions, ParentThrowingWhileChildrenRunWaitsForThemBeforePropagating) {
  fj::busy_pool pool(4);
  for (int rep = 0; rep < 10; ++rep) {
    std::atomic<int> finished{0};
    try {
      fj::sync_wait(pool, parent_throws_early, &finished, 16);
      FAIL() << "no exception";
    } catch (const counted_error& e) {
      EXPECT_EQ(e.value, 16);
    }
    EXPECT_EQ(finished.load(), 16);
  }
}

TEST(Exceptions, ChildExceptionWinsOverTheParentsLaterOne) {
  fj::unit_pool pool;
  auto parent = []() -> fj::task<void> {
    int a = 0;
    co_await fj::fork(&a, throw_if, true, 1);  // captured first (the parent is not stolen on one worker)
    throw counted_error(2);
  };
  try {
    fj::sync_wait(pool, parent);
    FAIL() << "no exception";
  } catch (const counted_error& e) {
    EXPECT_EQ(e.value, 1);
  }
}

}  // namespace
