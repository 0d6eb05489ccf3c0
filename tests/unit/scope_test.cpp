// fj::scope (include/forkjoin/scope.hpp, docs/protocols/spawn.md): plain functions spawn children and sync.
// Results, the discard form, what spawn keeps of its arguments, several syncs, the implicit sync, exceptions
// (the first rethrown, the others counted), scopes on ordinary threads, on unit_pool, nested, inside
// coroutine tasks; fj::sync_wait of plain functions; fj::parallel_invoke; and each misuse: fj::scope_error
// where it can be thrown, death tests (a child process, as tests/unit/misuse_death_test.cpp) where the
// process must stop.
//
// A "forced steal": the parent spawns a child that sets a flag, then spins until the flag is set before its
// sync. The spawning worker is busy spinning and runs nothing else, so only another worker (a thief) can
// have run that child; the tests that rely on it use a busy_pool of 2 or more workers, whose idle workers
// steal without sleeping.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "support/fib.hpp"
#include "support/spawn_fib.hpp"
#include "support/test_config.hpp"

namespace {

using fj::test::fib_value;

using fj::test::spawn_fib;

struct child_error : std::runtime_error {
  explicit child_error(int v) : std::runtime_error("child_error " + std::to_string(v)), value(v) {}
  int value;
};

int throw_value(int v) { throw child_error(v); }
void throw_void(int v) { throw child_error(v); }

template <class Pool>
std::uint64_t dropped(const Pool& pool) {
  std::uint64_t n = 0;
  for (const auto& w : pool.stats()) n += w.exceptions_dropped;
  return n;
}

template <class Pool>
std::uint64_t steals(const Pool& pool) {
  std::uint64_t n = 0;
  for (const auto& w : pool.stats()) n += w.steals;
  return n;
}

template <class Pool>
std::uint64_t roots_run(const Pool& pool) {
  std::uint64_t n = 0;
  for (const auto& w : pool.stats()) n += w.roots_run;
  return n;
}

void spin_until(const std::atomic<bool>& flag) {
  // acquire: pairs with the release store of the child that sets it.
  while (!flag.load(std::memory_order_acquire)) std::this_thread::yield();
}

// The child of a forced steal that throws.
int mark_and_throw(std::atomic<bool>* started, int v) {
  started->store(true, std::memory_order_release);
  throw child_error(v);
}

// ---- results and arguments ----

TEST(Scope, SpawnedResultsAreReadyAfterTheSync) {
  fj::busy_pool pool(2);
  EXPECT_EQ(fj::sync_wait(pool, spawn_fib, 22), fib_value(22));
  fj::busy_pool one(1);
  EXPECT_EQ(fj::sync_wait(one, spawn_fib, 18), fib_value(18));
}

void add_to(std::atomic<long>* total, long v) { total->fetch_add(v, std::memory_order_relaxed); }

TEST(Scope, TheDiscardFormRunsEveryChild) {
  fj::busy_pool pool(2);
  long const got = fj::sync_wait(pool, [] {
    std::atomic<long> total{0};
    {
      fj::scope s;
      // i + 0, not i: an lvalue argument is kept by reference (scope.hpp), and the loop variable changes
      // (and dies) before the children run; a prvalue is moved into the record.
      for (long i = 1; i <= 100; ++i) s.spawn(add_to, &total, i + 0);
      // A function with a result, its result dropped.
      s.spawn(spawn_fib, 10);
      s.sync();
    }
    return total.load(std::memory_order_relaxed);  // relaxed: the sync ordered the children's adds
  });
  EXPECT_EQ(got, 5050);
}

TEST(Scope, LambdasWithAndWithoutArgumentsAndCapturesAreSpawned) {
  fj::busy_pool pool(2);
  auto const got = fj::sync_wait(pool, [] {
    int base = 100;  // not const: a constant needs no capture
    int a = 0;
    long b = 0;
    std::string c;
    int d = 0;
    fj::scope s;
    s.spawn(&a, [base] { return base + 1; });
    s.spawn(&b, [](int n) { return spawn_fib(n); }, 15);
    s.spawn(&c, [&](const std::string& x) { return x + std::to_string(base); }, std::string("v"));
    s.spawn([&d](int v) { d = v; }, 7);
    s.sync();
    return std::tuple(a, b, c, d);
  });
  EXPECT_EQ(got, std::tuple(101, fib_value(15), std::string("v100"), 7));
}

struct accumulator {
  long total = 0;
  long add(long v) {
    total += v;
    return total;
  }
  [[nodiscard]] long scaled(long k) const { return total * k; }
};

TEST(Scope, MemberFunctionsAreSpawnedOnTheCallersObject) {
  fj::busy_pool pool(2);
  auto const got = fj::sync_wait(pool, [] {
    accumulator acc{10};
    accumulator other{3};
    long r1 = 0;
    long r2 = 0;
    {
      fj::scope s;
      s.spawn(&r1, &accumulator::add, &acc, 5);  // through a pointer
      s.spawn(&accumulator::add, other, 4);      // an lvalue: kept by reference, so `other` changes
      s.sync();
      s.spawn(&r2, &accumulator::scaled, std::cref(acc), 2);
    }
    return std::tuple(r1, r2, acc.total, other.total);
  });
  EXPECT_EQ(got, std::tuple(15L, 30L, 15L, 7L));
}

std::unique_ptr<int> make_boxed(int v) { return std::make_unique<int>(v); }
int unbox(std::unique_ptr<int> p) { return *p * 2; }
int unbox_rvalue(std::unique_ptr<int>&& p) {
  std::unique_ptr<int> const owned = std::move(p);
  return *owned + 1;
}

TEST(Scope, MoveOnlyArgumentsAreMovedInAndMoveOnlyResultsMovedOut) {
  fj::busy_pool pool(2);
  auto const got = fj::sync_wait(pool, [] {
    std::unique_ptr<int> made;
    int a = 0;
    int b = 0;
    auto kept = std::make_unique<int>(20);
    {
      fj::scope s;
      s.spawn(&made, make_boxed, 41);
      s.spawn(&a, unbox, std::make_unique<int>(21));
      s.spawn(&b, unbox_rvalue, std::move(kept));  // moved into the record at the spawn
      // The record holds the pointer, the caller's is empty from now on.
      EXPECT_EQ(kept, nullptr);
    }
    return std::tuple(made ? *made : -1, a, b);
  });
  EXPECT_EQ(got, std::tuple(41, 42, 21));
}

std::size_t length_of(const std::string& s) { return s.size(); }
std::string twice(std::string s) {  // by value: the record's string is moved into the parameter
  s += s;
  return s;
}

// Each temporary dies at the end of its spawn statement; the children run later (at the sync on one worker,
// on a thief on two). Were a temporary kept by reference, the child would read a dead string: its stack slot
// is reused by the next statement's temporaries (a wrong length), and ASan reports stack-use-after-scope.
// Strings longer than any short-string buffer, so that a dead one's characters are freed as well.
std::vector<std::size_t> spawn_temporaries() {
  std::string const long_text(100, 'x');
  std::vector<std::size_t> out(5);
  std::string doubled;
  fj::scope s;
  s.spawn(&out[0], length_of, std::string(200, 'y'));  // a temporary of the parameter's type
  s.spawn(&out[1], length_of, "a string literal, converted at the call");  // converted when the child runs
  s.spawn(&out[2], length_of, long_text + long_text);                      // a temporary from an expression
  s.spawn(&out[3], [](const std::string& t) { return t.size(); }, std::string(300, 'z'));
  s.spawn(&doubled, twice, std::string(64, 'w'));  // by value
  s.sync();
  out[4] = doubled.size();
  return out;
}

TEST(Scope, TemporariesPassedToSpawnLiveUntilTheChildHasRun) {
  std::vector<std::size_t> const want{200, std::string_view("a string literal, converted at the call").size(),
                                      200, 300, 128};
  fj::busy_pool one(1);
  EXPECT_EQ(fj::sync_wait(one, spawn_temporaries), want);
  fj::busy_pool two(2);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(fj::sync_wait(two, spawn_temporaries), want);
}

void push_back_n(std::vector<int>& v, int n) {
  for (int i = 0; i < n; ++i) v.push_back(i);
}

TEST(Scope, LvalueArgumentsAreTheCallersObjects) {
  fj::busy_pool pool(2);
  auto const got = fj::sync_wait(pool, [] {
    std::vector<int> left;
    std::vector<int> right;
    int counter = 0;
    {
      fj::scope s;
      s.spawn(push_back_n, left, 3);             // an lvalue: by reference
      s.spawn(push_back_n, std::ref(right), 4);  // std::ref works as well
      s.spawn([](int& c) { c = 9; }, counter);
    }
    return std::tuple(left.size(), right.size(), counter);
  });
  EXPECT_EQ(got, std::tuple(std::size_t{3}, std::size_t{4}, 9));
}

// A by-value parameter gets the argument's value at the spawn, as a call made there would: a loop of spawns
// passes each child its own index, even when the child runs after the loop has moved on (at the sync, or on a
// thief). Where the parameters cannot be seen (a generic lambda) the argument is copied as well.
void store_index(std::vector<long>* seen, std::size_t slot, long value) { (*seen)[slot] = value; }

TEST(Scope, ByValueArgumentsAreCopiedAtTheSpawn) {
  for (std::size_t workers : {1U, 2U, 4U}) {
    fj::busy_pool pool(workers);
    auto const got = fj::sync_wait(pool, [] {
      constexpr std::size_t n = 200;
      std::vector<long> seen(n, -1);
      std::vector<long> seen_generic(n, -1);
      fj::scope s;
      for (long i = 0; i < static_cast<long>(n); ++i) {
        auto const slot = static_cast<std::size_t>(i);
        s.spawn(store_index, &seen, slot, i);
        s.spawn([&seen_generic](auto at, auto value) { seen_generic[at] = value; }, slot, i);
      }
      s.sync();
      return std::pair(seen, seen_generic);
    });
    for (std::size_t k = 0; k < got.first.size(); ++k) {
      ASSERT_EQ(got.first[k], static_cast<long>(k)) << workers << " workers";
      ASSERT_EQ(got.second[k], static_cast<long>(k)) << workers << " workers, generic lambda";
    }
  }
}

// ---- syncs ----

TEST(Scope, AScopeCanBeSyncedManyTimesAndReusedAfterAnException) {
  fj::busy_pool pool(2);
  auto const got = fj::sync_wait(pool, [] {
    std::vector<long> results;
    fj::scope s;
    for (int round = 0; round < 5; ++round) {
      long a = 0;
      long b = 0;
      s.spawn(&a, spawn_fib, 10 + round);
      s.spawn(&b, spawn_fib, 5 + round);
      if (round == 2) s.spawn(throw_void, round);
      try {
        s.sync();
      } catch (const child_error& e) {
        results.push_back(-e.value);
      }
      results.push_back(a + b);
    }
    return results;
  });
  std::vector<long> want;
  for (int round = 0; round < 5; ++round) {
    if (round == 2) want.push_back(-2);
    want.push_back(fib_value(10 + round) + fib_value(5 + round));
  }
  EXPECT_EQ(got, want);
}

TEST(Scope, ASyncWithNothingSpawnedDoesNothing) {
  fj::busy_pool pool(2);
  EXPECT_EQ(fj::sync_wait(pool,
                          [] {
                            fj::scope s;
                            s.sync();
                            s.sync();
                            long a = 0;
                            s.spawn(&a, spawn_fib, 12);
                            s.sync();
                            s.sync();  // nothing spawned since the last sync
                            return a;
                          }),
            fib_value(12));
  // The same on an ordinary thread.
  fj::scope outside(pool);
  outside.sync();
  outside.sync();
}

TEST(Scope, TheDestructorSyncs) {
  fj::busy_pool pool(2);
  auto const got = fj::sync_wait(pool, [] {
    long a = 0;
    long b = 0;
    {
      fj::scope s;
      s.spawn(&a, spawn_fib, 16);
      s.spawn(&b, spawn_fib, 14);
    }
    return a + b;
  });
  EXPECT_EQ(got, fib_value(16) + fib_value(14));
}

TEST(Scope, TheDestructorRethrowsAChildsExceptionWhenNoneIsInFlight) {
  fj::busy_pool pool(2);
  auto const got = fj::sync_wait(pool, [] {
    try {
      fj::scope s;
      s.spawn(throw_void, 5);
    } catch (const child_error& e) {
      return e.value;
    }
    return -1;
  });
  EXPECT_EQ(got, 5);
}

// The take-back path of a sync (docs/protocols/spawn.md "Waiting at a sync"), forced on two busy workers: the
// owner's child C is stolen (the owner spins until C has started); C spawns G and then spins until G has run,
// without syncing. The thief is busy in C, so the only worker that can run G is the owner, waiting at its
// sync for C: it must take G back from the thief's deque, or both spin for ever.
struct take_back_run {
  std::atomic<bool> child_started{false};
  std::atomic<bool> grandchild_ran{false};
  std::thread::id owner;
  std::thread::id grandchild_thread;
};

void grandchild(take_back_run* run) {
  run->grandchild_thread = std::this_thread::get_id();  // read after the syncs
  run->grandchild_ran.store(true, std::memory_order_release);
}

void stolen_child_waiting_for_its_child(take_back_run* run) {
  run->child_started.store(true, std::memory_order_release);
  fj::scope s;
  s.spawn(grandchild, run);
  spin_until(run->grandchild_ran);
  s.sync();
}

TEST(ScopeSync, AWaitingSyncTakesBackWorkOfItsStolenChildFromTheThief) {
  fj::busy_pool pool(2);
  for (int i = 0; i < 10; ++i) {
    std::uint64_t before = 0;
    for (const auto& w : pool.stats()) before += w.steals_at_sync;
    take_back_run run;
    fj::sync_wait(pool, [&run] {
      run.owner = std::this_thread::get_id();
      fj::scope s;
      s.spawn(stolen_child_waiting_for_its_child, &run);
      spin_until(run.child_started);
      s.sync();
    });
    std::uint64_t after = 0;
    for (const auto& w : pool.stats()) after += w.steals_at_sync;
    EXPECT_EQ(run.grandchild_thread, run.owner);
    EXPECT_GE(after - before, 1u);
  }
}

// ---- exceptions ----

TEST(ScopeExceptions, TheFirstExceptionIsRethrownAndTheOthersAreCounted) {
  for (std::size_t const workers : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
    fj::busy_pool pool(workers);
    std::uint64_t const before = dropped(pool);
    int const caught = fj::sync_wait(pool, [] {
      long results[8] = {};
      fj::scope s;
      for (int i = 0; i < 8; ++i) {
        if (i % 2 == 0) {
          s.spawn(&results[i], throw_value, i + 1);
        } else {
          s.spawn(&results[i], spawn_fib, 12);
        }
      }
      try {
        s.sync();
      } catch (const child_error& e) {
        // The children that did not throw still ran.
        for (int i = 1; i < 8; i += 2) {
          if (results[i] != fib_value(12)) return -2;
        }
        return e.value;
      }
      return -1;
    });
    EXPECT_TRUE(caught == 1 || caught == 3 || caught == 5 || caught == 7) << caught;
    EXPECT_EQ(dropped(pool) - before, 3u) << workers << " workers";
  }
}

TEST(ScopeExceptions, AStolenChildsExceptionIsRethrownAtTheSync) {
  fj::busy_pool pool(2);
  for (int i = 0; i < 20; ++i) {
    std::uint64_t const steals_before = steals(pool);
    int const caught = fj::sync_wait(pool, [] {
      std::atomic<bool> started{false};
      fj::scope s;
      s.spawn(mark_and_throw, &started, 17);
      spin_until(started);
      try {
        s.sync();
      } catch (const child_error& e) {
        return e.value;
      }
      return -1;
    });
    EXPECT_EQ(caught, 17);
    EXPECT_GT(steals(pool), steals_before);
  }
}

TEST(ScopeExceptions, StolenAndLocalChildrenThrowingAreCountedOnce) {
  fj::busy_pool pool(2);
  std::uint64_t const before = dropped(pool);
  int const caught = fj::sync_wait(pool, [] {
    std::atomic<bool> started{false};
    fj::scope s;
    s.spawn(mark_and_throw, &started, 1);  // the oldest: the thief takes it
    spin_until(started);
    s.spawn(throw_void, 2);  // run here at the sync
    s.spawn(throw_void, 3);
    try {
      s.sync();
    } catch (const child_error& e) {
      return e.value;
    }
    return -1;
  });
  EXPECT_GE(caught, 1);
  EXPECT_LE(caught, 3);
  EXPECT_EQ(dropped(pool) - before, 2u);
}

TEST(ScopeExceptions, TheDestructorDuringUnwindingDropsAndCountsTheChildrensExceptions) {
  fj::busy_pool pool(2);
  std::uint64_t const before = dropped(pool);
  std::string const got = fj::sync_wait(pool, [] {
    long a = 0;
    try {
      fj::scope s;
      s.spawn(&a, spawn_fib, 15);
      s.spawn(throw_void, 1);
      s.spawn(throw_void, 2);
      throw std::logic_error("the body's own");
    } catch (const std::logic_error& e) {
      // The destructor waited for every child before the handler ran.
      return a == fib_value(15) ? std::string(e.what()) : std::string("a child had not finished");
    } catch (const child_error&) {
      return std::string("a child's exception replaced the body's");
    }
    return std::string("nothing was thrown");
  });
  EXPECT_EQ(got, "the body's own");
  // One child's exception was kept by the scope and dropped by its destructor; the other dropped at capture.
  EXPECT_EQ(dropped(pool) - before, 2u);
}

// ---- where a scope runs ----

bool on_a_worker() {
  try {
    (void)fj::worker_index();
    return true;
  } catch (const fj::not_in_worker_error&) {
    return false;
  }
}

TEST(ScopeOnAnOrdinaryThread, ChildrenRunOnTheDefaultPool) {
  std::uint64_t const roots_before = roots_run(fj::default_pool());
  long a = 0;
  long b = 0;
  bool child_on_worker = false;
  {
    fj::scope s;
    s.spawn(&a, spawn_fib, 20);  // its own scopes spawn onto the worker that runs it
    s.spawn(&child_on_worker, on_a_worker);
    b = spawn_fib(15);  // a scope on this thread too, nested in s
    s.sync();
  }
  EXPECT_EQ(a, fib_value(20));
  EXPECT_EQ(b, fib_value(15));
  EXPECT_TRUE(child_on_worker);
  EXPECT_GE(roots_run(fj::default_pool()) - roots_before, 2u);
}

TEST(ScopeOnAnOrdinaryThread, ChildrenRunOnTheGivenPool) {
  fj::busy_pool pool(3);
  std::uint64_t const roots_before = roots_run(pool);
  std::vector<long> results(10);
  {
    fj::scope s(pool);
    for (int i = 0; i < 10; ++i) s.spawn(&results[static_cast<std::size_t>(i)], spawn_fib, 10 + i);
    s.sync();
    for (int i = 0; i < 10; ++i) EXPECT_EQ(results[static_cast<std::size_t>(i)], fib_value(10 + i));
    // A second round in the same scope.
    s.spawn(&results[0], spawn_fib, 21);
  }
  EXPECT_EQ(results[0], fib_value(21));
  EXPECT_EQ(roots_run(pool) - roots_before, 11u);
}

TEST(ScopeOnAnOrdinaryThread, ExceptionsAreRethrownAtTheSync) {
  fj::lazy_pool pool(2);
  std::uint64_t const before = dropped(pool);
  fj::scope s(pool);
  s.spawn(throw_void, 1);
  s.spawn(throw_void, 2);
  long a = 0;
  s.spawn(&a, spawn_fib, 12);
  EXPECT_THROW(s.sync(), child_error);
  EXPECT_EQ(a, fib_value(12));
  EXPECT_EQ(dropped(pool) - before, 1u);
  s.spawn(&a, spawn_fib, 13);
  s.sync();
  EXPECT_EQ(a, fib_value(13));
}

TEST(ScopeOnAnOrdinaryThread, TheDestructorDuringUnwindingCountsTheDroppedException) {
  fj::busy_pool pool(2);
  std::uint64_t const before = dropped(pool);
  bool body_exception_caught = false;
  try {
    fj::scope s(pool);
    s.spawn(throw_void, 1);
    throw std::logic_error("the body's own");
  } catch (const std::logic_error&) {
    body_exception_caught = true;
  }
  EXPECT_TRUE(body_exception_caught);
  EXPECT_EQ(dropped(pool) - before, 1u)
      << "the exception the destructor dropped was not counted in the pool's statistics";
}

void record(std::vector<int>* order, int v) { order->push_back(v); }

void record_tree(std::vector<int>* order, int v, int depth) {
  order->push_back(v);
  if (depth == 0) return;
  fj::scope s;
  s.spawn(record_tree, order, 2 * v, depth - 1);
  order->push_back(-v);
  s.spawn(record_tree, order, 2 * v + 1, depth - 1);
}

TEST(ScopeOnAUnitPool, SpawnedCallsRunInProgramOrder) {
  fj::unit_pool pool;
  auto const got = fj::sync_wait(pool, [] {
    std::vector<int> order;
    fj::scope s;
    s.spawn(record, &order, 1);
    order.push_back(2);
    s.spawn(record, &order, 3);
    s.sync();
    order.push_back(4);
    record_tree(&order, 1, 2);
    return order;
  });
  // record_tree(1, 2) serially: 1, then the subtree of 2 (2, 4, -2, 5), -1, then the subtree of 3.
  std::vector<int> const want{1, 2, 3, 4, 1, 2, 4, -2, 5, -1, 3, 6, -3, 7};
  EXPECT_EQ(got, want);
}

TEST(ScopeOnAUnitPool, ExceptionsWaitForTheSync) {
  fj::unit_pool pool;
  auto const got = fj::sync_wait(pool, [] {
    bool went_on = false;
    int caught = 0;
    fj::scope s;
    s.spawn(throw_void, 3);
    went_on = true;  // the spawn ran the call already; its exception waits
    s.spawn(throw_void, 4);
    try {
      s.sync();
    } catch (const child_error& e) {
      caught = e.value;
    }
    return std::pair(went_on, caught);
  });
  EXPECT_EQ(got, std::pair(true, 3));
  EXPECT_EQ(dropped(pool), 1u);
}

TEST(Scope, NestedScopesInOneFunctionEachSyncTheirOwnChildren) {
  fj::busy_pool pool(2);
  auto const got = fj::sync_wait(pool, [] {
    long a = 0;
    long b = 0;
    long c = 0;
    fj::scope outer;
    outer.spawn(&a, spawn_fib, 18);
    {
      fj::scope inner;
      inner.spawn(&b, spawn_fib, 17);
      inner.sync();
      if (b != fib_value(17)) return -1L;
    }
    outer.spawn(&c, spawn_fib, 16);  // the inner scope is closed: the outer one may spawn again
    outer.sync();
    return a + b + c;
  });
  EXPECT_EQ(got, fib_value(18) + fib_value(17) + fib_value(16));
}

// ---- scopes and coroutine tasks in one program ----

// A task whose body spawns plain children (no co_await while the scope is open).
fj::task<long> task_that_spawns(int n) {
  long a = 0;
  long b = 0;
  {
    fj::scope s;
    s.spawn(&a, spawn_fib, n - 1);
    b = spawn_fib(n - 2);
  }
  co_return a + b;
}

// Forks coroutine children and spawns plain ones, one after the other.
fj::task<long> mixed(int n) {
  if (n < 4) co_return fib_value(n);
  long a = 0;
  long b = 0;
  long c = 0;
  co_await fj::fork(&a, mixed, n - 1);
  co_await fj::call(&b, task_that_spawns, n - 2);
  co_await fj::join;
  c = spawn_fib(n - 3);  // a plain call from a task
  co_return a + b + c;
}

long mixed_value(int n) {
  if (n < 4) return fib_value(n);
  return mixed_value(n - 1) + fib_value(n - 2) + fib_value(n - 3);
}

TEST(ScopeWithTasks, TasksSpawnAndForkOnTheSamePool) {
  for (std::size_t const workers : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
    fj::busy_pool pool(workers);
    EXPECT_EQ(fj::sync_wait(pool, mixed, 16), mixed_value(16)) << workers << " workers";
    fj::lazy_pool lazy(workers);
    EXPECT_EQ(fj::sync_wait(lazy, mixed, 16), mixed_value(16)) << workers << " workers";
  }
}

fj::task<int> leaf(int v) { co_return v; }

// A co_await that cannot move the task (a call of a task that forks nothing) with a scope open is harmless.
fj::task<long> scope_across_a_call(int n) {
  long a = 0;
  int b = 0;
  fj::scope s;
  s.spawn(&a, spawn_fib, n);
  co_await fj::call(&b, leaf, 5);
  s.sync();
  co_return a + b;
}

TEST(ScopeWithTasks, AScopeOpenAcrossACoAwaitThatDoesNotMoveTheTaskIsFine) {
  fj::busy_pool pool(2);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(fj::sync_wait(pool, scope_across_a_call, 15), fib_value(15) + 5);
}

// ---- sync_wait of plain functions ----

std::thread::id thread_of_call() { return std::this_thread::get_id(); }

fj::task<bool> plain_sync_wait_from_a_task(fj::busy_pool* pool) {
  long const r = fj::sync_wait(*pool, spawn_fib, 14);
  bool const inline_call = fj::sync_wait(*pool, thread_of_call) == std::this_thread::get_id();
  co_return r == fib_value(14) && inline_call;
}

TEST(SyncWaitPlain, FromAWorkerOfTheSamePoolItRunsInline) {
  fj::busy_pool pool(2);
  std::uint64_t const roots_before = roots_run(pool);
  EXPECT_TRUE(fj::sync_wait(pool, plain_sync_wait_from_a_task, &pool));
  // Only the task itself was a root: the inline calls submitted nothing.
  EXPECT_EQ(roots_run(pool) - roots_before, 1u);
}

// A spawned child (here or on a thief) calls a plain function through sync_wait on its own pool: it runs
// inline on the child's thread.
long child_calls_sync_wait(fj::busy_pool* pool, int n) {
  if (fj::sync_wait(*pool, thread_of_call) != std::this_thread::get_id()) return -1;
  return fj::sync_wait(*pool, spawn_fib, n);
}

TEST(SyncWaitPlain, FromASpawnedChildItRunsInline) {
  fj::busy_pool pool(2);
  for (int i = 0; i < 10; ++i) {
    auto const got = fj::sync_wait(pool, [&pool] {
      long a = 0;
      long b = 0;
      fj::scope s;
      s.spawn(&a, child_calls_sync_wait, &pool, 16);
      b = child_calls_sync_wait(&pool, 15);
      s.sync();
      return a + b;
    });
    EXPECT_EQ(got, fib_value(16) + fib_value(15));
  }
}

TEST(SyncWaitPlain, FromOrdinaryCodeARootRunsItAndReturnsItsResult) {
  fj::lazy_pool pool(2);
  EXPECT_EQ(fj::sync_wait(pool, spawn_fib, 20), fib_value(20));
  EXPECT_NE(fj::sync_wait(pool, thread_of_call), std::this_thread::get_id());
  EXPECT_THROW(fj::sync_wait(pool, throw_value, 3), child_error);
  std::vector<int> v;
  fj::sync_wait(pool, push_back_n, v, 3);  // a void function; an lvalue argument by reference
  EXPECT_EQ(v.size(), 3u);
  EXPECT_EQ(fj::sync_wait(length_of, std::string(40, 'q')), 40u);  // the default pool
  EXPECT_EQ(fj::sync_wait(spawn_fib, 19), fib_value(19));
  EXPECT_EQ(fj::sync_wait(fj::test::fib, 19), fib_value(19));  // a task on the default pool
}

// ---- parallel_invoke ----

TEST(ParallelInvoke, AllVoidFunctionsReturnVoid) {
  std::atomic<int> ran{0};
  auto bump = [&ran] { ran.fetch_add(1, std::memory_order_relaxed); };
  static_assert(std::is_void_v<decltype(fj::parallel_invoke(bump, bump, bump))>);
  fj::parallel_invoke(bump, bump, bump);  // from an ordinary thread: the default pool
  EXPECT_EQ(ran.load(), 3);
  fj::busy_pool pool(2);
  fj::sync_wait(pool, [&] { fj::parallel_invoke(bump, bump); });
  fj::parallel_invoke(bump);  // a single function
  EXPECT_EQ(ran.load(), 6);
}

TEST(ParallelInvoke, MixedResultsComeBackInArgumentOrderWithMonostateForVoid) {
  fj::busy_pool pool(2);
  auto const got = fj::sync_wait(pool, [] {
    int side = 0;
    auto r = fj::parallel_invoke([] { return spawn_fib(18); }, [&side] { side = 1; },
                                 [] { return std::string("last"); }, [] { return std::make_unique<int>(4); });
    static_assert(
        std::is_same_v<decltype(r), std::tuple<long, std::monostate, std::string, std::unique_ptr<int>>>);
    return std::tuple(std::get<0>(r), side, std::get<2>(r), *std::get<3>(r));
  });
  EXPECT_EQ(got, std::tuple(fib_value(18), 1, std::string("last"), 4));
  // Recursive use: fib through parallel_invoke.
  auto const [x, y] = fj::parallel_invoke([] { return spawn_fib(17); }, [] { return spawn_fib(16); });
  EXPECT_EQ(x + y, fib_value(18));
}

TEST(ParallelInvoke, TheFirstExceptionIsRethrownOnceAllHaveReturned) {
  fj::busy_pool pool(2);
  std::uint64_t const before = dropped(pool);
  auto const got = fj::sync_wait(pool, [] {
    std::atomic<int> finished{0};
    try {
      fj::parallel_invoke([] { throw_void(1); },
                          [&finished] {
                            (void)spawn_fib(15);
                            finished.fetch_add(1, std::memory_order_relaxed);
                          },
                          [] { return throw_value(2); });
    } catch (const child_error& e) {
      return std::pair(e.value, finished.load(std::memory_order_relaxed));
    }
    return std::pair(-1, -1);
  });
  EXPECT_TRUE(got.first == 1 || got.first == 2) << got.first;
  EXPECT_EQ(got.second, 1);
  // One of the two exceptions was dropped: counted when it was the spawned one (captured by the scope) or by
  // the scope's destructor while the last function's exception was in flight.
  EXPECT_EQ(dropped(pool) - before, 1u);
}

TEST(ParallelInvoke, OnAUnitPoolTheFunctionsRunInArgumentOrderAndTheFirstExceptionWins) {
  fj::unit_pool pool;
  std::uint64_t const before = dropped(pool);
  auto const got = fj::sync_wait(pool, [] {
    std::string order;
    int caught = 0;
    try {
      fj::parallel_invoke([&order] { order += 'a'; },
                          [&order] {
                            order += 'b';
                            throw_void(1);
                          },
                          [&order] {
                            order += 'c';
                            throw_void(2);
                          },
                          [&order] { order += 'd'; });
    } catch (const child_error& e) {
      caught = e.value;
    }
    return std::pair(order, caught);
  });
  EXPECT_EQ(got, std::pair(std::string("abcd"), 1));
  EXPECT_EQ(dropped(pool) - before, 1u);
}

// Deep enough that thieves take functions, so that both the direct call of a popped function and the wait
// for a stolen one run, with results and exceptions coming back through each.
long invoke_fib(int n) {
  if (n < 2) return n;
  auto const [a, b] =
      fj::parallel_invoke([n] { return invoke_fib(n - 1); }, [n] { return invoke_fib(n - 2); });
  return a + b;
}

TEST(ParallelInvoke, StolenAndPoppedFunctionsBothReturnTheirResults) {
  fj::busy_pool pool(4);
  int const n = fj::test::scale() == 1 ? 30 : 25;
  EXPECT_EQ(fj::sync_wait(pool, invoke_fib, n), fib_value(n));
  std::uint64_t steals = 0;
  for (const auto& w : pool.stats()) steals += w.steals;
  EXPECT_GT(steals, 0u);
}

TEST(ParallelInvoke, AFunctionSpawningIntoAScopeOpenedBeforeGetsScopeError) {
  fj::busy_pool pool(2);
  EXPECT_THROW(fj::sync_wait(pool,
                             [] {
                               fj::scope s;
                               fj::parallel_invoke([&s] { s.spawn(throw_void, 1); }, [] {});
                               s.sync();
                             }),
               fj::scope_error);
  EXPECT_EQ(fj::sync_wait(pool, invoke_fib, 12), fib_value(12));
}

// ---- misuse: fj::scope_error ----

void noop() {}

void spawn_into(fj::scope* parent) { parent->spawn(noop); }
void sync_of(fj::scope* parent) { parent->sync(); }

// A child run at its parent's sync (one worker: nothing is stolen) that spawns into or syncs the parent's
// scope: the scope_error is the child's exception, rethrown by the parent's sync.
TEST(ScopeMisuse, AChildRunAtTheSyncSpawningIntoItsParentsScopeGetsScopeError) {
  fj::busy_pool pool(1);
  EXPECT_THROW(fj::sync_wait(pool,
                             [] {
                               fj::scope s;
                               s.spawn(spawn_into, &s);
                               s.sync();
                             }),
               fj::scope_error);
  EXPECT_THROW(fj::sync_wait(pool,
                             [] {
                               fj::scope s;
                               s.spawn(sync_of, &s);
                               s.sync();
                             }),
               fj::scope_error);
  // The pool is still usable.
  EXPECT_EQ(fj::sync_wait(pool, spawn_fib, 12), fib_value(12));
}

// The same where spawn runs the child at once (unit_pool): the child's spawn comes while the parent's
// spawn is still running it.
TEST(ScopeMisuse, AChildRunAtOnceOnAUnitPoolSpawningIntoItsParentsScopeGetsScopeError) {
  fj::unit_pool pool;
  EXPECT_THROW(fj::sync_wait(pool,
                             [] {
                               fj::scope s;
                               s.spawn(spawn_into, &s);
                               s.sync();
                             }),
               fj::scope_error);
  EXPECT_THROW(fj::sync_wait(pool,
                             [] {
                               fj::scope s;
                               s.spawn(sync_of, &s);
                               s.sync();
                             }),
               fj::scope_error);
}

void stolen_spawn_into(fj::scope* parent, std::atomic<bool>* started, bool sync) {
  started->store(true, std::memory_order_release);
  if (sync) {
    parent->sync();
  } else {
    parent->spawn(noop);
  }
}

// Returns 0 if a stolen child's spawn into (or sync of) its parent's scope was a scope_error.
int stolen_child_misuse(bool sync) {
  fj::busy_pool pool(2);
  bool const named = fj::sync_wait(pool, [sync] {
    std::atomic<bool> started{false};
    fj::scope s;
    s.spawn(stolen_spawn_into, &s, &started, sync);
    spin_until(started);
    try {
      s.sync();
    } catch (const fj::scope_error&) {
      return true;
    }
    return false;
  });
  return named ? 0 : 1;
}

// A child that a thief took runs on another thread than the scope's: its spawn into the parent's scope must
// be a scope_error too, not taken for a task that moved (which stops the process). Run in a child process,
// so that a process stop fails this test alone.
TEST(ScopeMisuse, AStolenChildSpawningIntoItsParentsScopeGetsScopeError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(stolen_child_misuse(false)), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(std::exit(stolen_child_misuse(true)), ::testing::ExitedWithCode(0), "");
}

// The same from a thread that is not a worker at all.
int other_thread_misuse() {
  fj::busy_pool pool(2);
  bool const named = fj::sync_wait(pool, [] {
    fj::scope s;
    bool caught = false;
    std::thread other([&] {
      try {
        s.spawn(noop);
      } catch (const fj::scope_error&) {
        caught = true;
      }
    });
    other.join();
    return caught;
  });
  return named ? 0 : 1;
}

TEST(ScopeMisuse, SpawningFromAnotherThreadGetsScopeError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(other_thread_misuse()), ::testing::ExitedWithCode(0), "");
  // A scope opened on an ordinary thread, used from another one.
  fj::scope s;
  bool caught = false;
  std::thread other([&] {
    try {
      s.spawn(noop);
    } catch (const fj::scope_error&) {
      caught = true;
    }
  });
  other.join();
  EXPECT_TRUE(caught);
}

TEST(ScopeMisuse, SpawningIntoAnOuterScopeWhileAnInnerOneIsOpenGetsScopeError) {
  fj::busy_pool pool(2);
  auto const on_worker = fj::sync_wait(pool, [] {
    long a = 0;
    fj::scope outer;
    outer.spawn(&a, spawn_fib, 12);
    bool spawn_refused = false;
    bool sync_refused = false;
    {
      fj::scope inner;
      try {
        outer.spawn(noop);
      } catch (const fj::scope_error&) {
        spawn_refused = true;
      }
      try {
        outer.sync();
      } catch (const fj::scope_error&) {
        sync_refused = true;
      }
    }
    outer.sync();
    return std::tuple(spawn_refused, sync_refused, a);
  });
  EXPECT_EQ(on_worker, std::tuple(true, true, fib_value(12)));
  // On an ordinary thread.
  fj::scope outer(pool);
  fj::scope inner(pool);
  EXPECT_THROW(outer.spawn(noop), fj::scope_error);
  EXPECT_THROW(outer.sync(), fj::scope_error);
}

TEST(ScopeMisuse, TheScopeErrorSaysWhatWasMisused) {
  fj::scope outer;
  fj::scope inner;
  try {
    outer.spawn(noop);
    ADD_FAILURE() << "no scope_error";
  } catch (const fj::scope_error& e) {
    EXPECT_EQ(
        std::string_view(e.what()),
        "fj::scope: spawn called from a child of the scope, from another thread, or while a scope opened "
        "after this one is still open");
  }
}

// ---- misuse that stops the process ----

class ScopeDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

constexpr std::string_view k_moved =
    "fj: fj::scope: a scope in a task stayed open across a co_await that moved the task to another worker "
    "(sync before the co_await)";

enum class after_move { spawn, sync, destroy };

// Opens a scope, spawns, then moves itself to the other worker of a 2-worker pool with the scope open.
fj::task<void> scope_across_a_move(fj::busy_pool* pool, after_move what) {
  fj::scope s;
  s.spawn(noop);
  co_await fj::resume_on(*pool, (fj::worker_index() + 1) % pool->size());
  if (what == after_move::spawn) {
    s.spawn(noop);
  } else if (what == after_move::sync) {
    s.sync();
  }
}

void run_scope_across_a_move(after_move what) {
  fj::busy_pool pool(2);
  fj::sync_wait(pool, scope_across_a_move, &pool, what);
}

std::string literal(std::string_view text) {
  std::string out;
  for (char const c : text) {
    if (std::string_view(".[]{}()\\*+?^$|").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

TEST_F(ScopeDeathTest, ASpawnAfterACoAwaitThatMovedTheTaskStopsTheProcess) {
  EXPECT_DEATH(run_scope_across_a_move(after_move::spawn), literal(k_moved));
}

TEST_F(ScopeDeathTest, ASyncAfterACoAwaitThatMovedTheTaskStopsTheProcess) {
  EXPECT_DEATH(run_scope_across_a_move(after_move::sync), literal(k_moved));
}

TEST_F(ScopeDeathTest, TheDestructorAfterACoAwaitThatMovedTheTaskStopsTheProcess) {
  EXPECT_DEATH(run_scope_across_a_move(after_move::destroy), literal(k_moved));
}

TEST_F(ScopeDeathTest, AScopeDestroyedWhileALaterOneIsOpenStopsTheProcess) {
  EXPECT_DEATH(
      {
        std::optional<fj::scope> first;
        std::optional<fj::scope> second;
        first.emplace();
        second.emplace();
        first.reset();
      },
      literal("fj: fj::scope: a scope was destroyed while a scope opened after it was still open, or on "
              "another thread"));
}

}  // namespace
