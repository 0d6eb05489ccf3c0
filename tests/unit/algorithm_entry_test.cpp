// The entry from ordinary code (loop.hpp, docs/algorithms.md "Entering the pool"): after the timed prefix the
// caller takes blocks from the left while a root on the pool takes shares (a fold's from the right). Elements
// slow enough that the calls go past the prefix, at 1, 2, 3, 4, 8 and 16 workers on lazy and busy pools:
// every element is visited once, results equal std::'s in index order, exceptions thrown on either end reach
// the caller, a search still stops early, and many calls in a row (the pool's workers asleep, waking, or
// awake) each end with the right answer.
#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "support/algorithm_test_support.hpp"

namespace {

using namespace fj::test::algo;

// About a hundred nanoseconds of work per element, so that a few thousand elements outlast the timed prefix.
std::uint64_t slow(std::uint64_t x) {
  for (int i = 0; i < 40; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    asm volatile("" : "+r"(x));
  }
  return x;
}

// slow(x) for its time; always true.
bool touch(std::uint64_t x) {
  std::uint64_t y = slow(x);
  asm volatile("" : "+r"(y));
  return true;
}

std::size_t entry_size() { return static_cast<std::size_t>(fj::test::scaled(60'000, 6'000)); }

// 0, 1, ..., n - 1 and the serial sum of slow(x) over them: most tests below sum that input.
struct slow_sum_input {
  std::vector<std::uint64_t> in;
  std::uint64_t sum;
};
slow_sum_input slow_input(std::size_t n) {
  std::vector<std::uint64_t> in(n);
  std::iota(in.begin(), in.end(), std::uint64_t{0});
  std::uint64_t const sum =
      std::transform_reduce(in.begin(), in.end(), std::uint64_t{0}, std::plus<>{}, slow);
  return {std::move(in), sum};
}

// fn(pool) on lazy pools of 1, 2, 3, 4, 8 and 16 workers and busy pools of 2 and 3, as their common base.
template <class Fn>
void on_entry_pools(Fn fn) {
  struct entry_pools {
    std::vector<std::unique_ptr<fj::lazy_pool>> lazy;
    std::vector<std::unique_ptr<fj::busy_pool>> busy;
  };
  static entry_pools pools = [] {
    entry_pools p;
    for (std::size_t w : {1U, 2U, 3U, 4U, 8U, 16U}) p.lazy.push_back(std::make_unique<fj::lazy_pool>(w));
    for (std::size_t w : {2U, 3U}) p.busy.push_back(std::make_unique<fj::busy_pool>(w));
    return p;
  }();
  auto run = [&](fj::detail::pool_base& pool) {
    SCOPED_TRACE(pool.core().description());
    fn(pool);
  };
  for (auto& p : pools.lazy) run(*p);
  for (auto& p : pools.busy) run(*p);
}

TEST(AlgorithmEntry, EveryElementOnceAndResultsInIndexOrder) {
  std::size_t const n = entry_size();
  on_entry_pools([&](fj::detail::pool_base& pool) {
    std::vector<std::atomic<int>> visits(n);
    fj::for_each_index(pool, std::size_t{0}, n, [&](std::size_t i) {
      (void)slow(i);
      visits[i].fetch_add(1, std::memory_order_relaxed);
    });
    std::size_t wrong = 0;
    for (auto& v : visits) wrong += v.load(std::memory_order_relaxed) == 1 ? 0 : 1;
    EXPECT_EQ(wrong, 0U) << "elements not visited exactly once";

    std::vector<std::uint64_t> in(n);
    std::iota(in.begin(), in.end(), std::uint64_t{1});
    std::vector<std::uint64_t> out(n);
    std::vector<std::uint64_t> expect(n);
    std::transform(in.begin(), in.end(), expect.begin(), slow);
    fj::transform(pool, in.begin(), in.end(), out.begin(), slow);
    EXPECT_EQ(out, expect);

    auto maps = random_affine(n);
    auto slow_id = [](const affine& f) { return affine{f.a, slow(f.b) * 0 + f.b}; };
    affine const serial = std::accumulate(maps.begin(), maps.end(), affine{}, compose{});
    EXPECT_EQ(fj::transform_reduce(pool, maps.begin(), maps.end(), affine{}, compose{}, slow_id), serial);

    std::uint64_t const sum =
        std::transform_reduce(in.begin(), in.end(), std::uint64_t{0}, std::plus<>{}, slow);
    EXPECT_EQ(fj::transform_reduce(pool, in.begin(), in.end(), std::uint64_t{0}, std::plus<>{}, slow), sum);
    auto pred = [](std::uint64_t x) { return slow(x) % 7 == 0; };
    EXPECT_EQ(fj::count_if(pool, in.begin(), in.end(), pred), std::count_if(in.begin(), in.end(), pred));
    std::size_t const at = n - n / 5;
    auto is_at = [&](std::uint64_t x) { return touch(x) && x == in[at]; };
    EXPECT_EQ(fj::find_if(pool, in.begin(), in.end(), is_at), in.begin() + static_cast<std::ptrdiff_t>(at));
    EXPECT_TRUE(fj::any_of(pool, in.begin(), in.end(), is_at));
    EXPECT_FALSE(fj::any_of(pool, in.begin(), in.end(), [&](std::uint64_t x) { return touch(x) && x == 0; }));
  });
}

TEST(AlgorithmEntry, ExceptionsFromEitherEndReachTheCaller) {
  std::size_t const n = entry_size();
  on_entry_pools([&](fj::detail::pool_base& pool) {
    // Near the start (the prefix or the caller's end), the middle, and the last elements (the pool's end).
    for (std::size_t k : {std::size_t{3}, n / 2, n - n / 10, n - 1}) {
      std::atomic<std::size_t> calls{0};
      auto f = [&](std::size_t i) {
        calls.fetch_add(1, std::memory_order_relaxed);
        (void)slow(i);
        if (i == k) throw element_error(i);
      };
      EXPECT_THROW(fj::for_each_index(pool, std::size_t{0}, n, f), element_error) << "k=" << k;
      std::vector<std::uint64_t> in(n);
      std::iota(in.begin(), in.end(), std::uint64_t{0});
      auto g = [&](std::uint64_t x) {
        if (x == k) throw element_error(k);
        return slow(x);
      };
      EXPECT_THROW(fj::transform_reduce(pool, in.begin(), in.end(), std::uint64_t{0}, std::plus<>{}, g),
                   element_error)
          << "k=" << k;
    }
    // Both ends throw: one exception arrives, and the pool still works afterwards.
    auto both = [&](std::size_t i) {
      (void)slow(i);
      if (i == n / 3 || i == n - 2) throw element_error(i);
    };
    EXPECT_THROW(fj::for_each_index(pool, std::size_t{0}, n, both), element_error);
    std::vector<int> ones(n, 1);
    EXPECT_EQ(fj::reduce(pool, ones.begin(), ones.end()), static_cast<int>(n));
  });
}

TEST(AlgorithmEntry, AnEarlyMatchStopsTheSearch) {
  std::size_t const n = entry_size() * 4;
  on_entry_pools([&](fj::detail::pool_base& pool) {
    std::vector<std::uint64_t> in(n);
    std::iota(in.begin(), in.end(), std::uint64_t{0});
    // Past the timed prefix, in the caller's share of the rest.
    std::size_t const at = n / 64;
    std::atomic<std::size_t> calls{0};
    std::atomic<std::size_t> calls_at_match{0};
    auto is_at = [&](std::uint64_t x) {
      std::size_t const c = calls.fetch_add(1, std::memory_order_relaxed) + 1;
      bool const hit = touch(x) && x == at;
      if (hit) calls_at_match.store(c, std::memory_order_relaxed);
      return hit;
    };
    EXPECT_TRUE(fj::any_of(pool, in.begin(), in.end(), is_at));
    // How far the other threads get before the caller reaches the match depends on the OS (a preempted caller
    // lets them run on), so only the calls after it are counted: the stop flag ends every thread's search at
    // its next block, a few dozen elements. The count is checked where every thread can have a core soon.
    if (pool.core().size() <= 4) {
      EXPECT_LT(calls.load() - calls_at_match.load(), n / 8) << "any_of went on after its match";
    }
    EXPECT_EQ(fj::find_if(pool, in.begin(), in.end(), is_at), in.begin() + static_cast<std::ptrdiff_t>(at));
  });
}

// Calls one after another, some right after the last and some after the workers had time to fall asleep:
// the caller may find the pool's end not started yet, running, or finished.
TEST(AlgorithmEntry, ManyCallsInARow) {
  std::size_t const n = entry_size() / 4;
  int const calls = static_cast<int>(fj::test::scaled(200, 20));
  auto const [in, sum] = slow_input(n);
  on_entry_pools([&](fj::detail::pool_base& pool) {
    for (int c = 0; c < calls; ++c) {
      if (c % 16 == 15) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      ASSERT_EQ(fj::transform_reduce(pool, in.begin(), in.end(), std::uint64_t{0}, std::plus<>{}, slow), sum)
          << "call " << c;
    }
  });
}

// Every worker of the pool is busy: nobody takes the pool's end, the caller runs every block itself and takes
// the root back (started_root::withdraw) instead of waiting for a worker. Without that, the call would only
// return once the blockers are released (here, after ten seconds).
TEST(AlgorithmEntry, TheCallerTakesBackARootNoWorkerStarted) {
  std::size_t const n = entry_size();
  auto const [in, sum] = slow_input(n);
  for (std::size_t workers : {2U, 3U}) {
    fj::lazy_pool pool(workers);
    std::atomic<std::size_t> blocking{0};
    std::atomic<bool> release{false};
    auto block = [&] {
      blocking.fetch_add(1);
      auto const until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!release.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    };
    std::vector<std::thread> blockers;
    blockers.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w) blockers.emplace_back([&] { fj::sync_wait(pool, block); });
    while (blocking.load() < workers) std::this_thread::yield();
    auto const t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(fj::transform_reduce(pool, in.begin(), in.end(), std::uint64_t{0}, std::plus<>{}, slow), sum);
    std::vector<std::atomic<int>> visits(n);
    fj::for_each_index(pool, std::size_t{0}, n, [&](std::size_t i) {
      (void)slow(i);
      visits[i].fetch_add(1, std::memory_order_relaxed);
    });
    auto const took = std::chrono::steady_clock::now() - t0;
    release.store(true);
    for (auto& t : blockers) t.join();
    EXPECT_LT(took, std::chrono::seconds(5)) << "the caller waited for a worker";
    std::size_t wrong = 0;
    for (auto& v : visits) wrong += v.load(std::memory_order_relaxed) == 1 ? 0 : 1;
    EXPECT_EQ(wrong, 0U);
    // And the pool works as before.
    EXPECT_EQ(fj::transform_reduce(pool, in.begin(), in.end(), std::uint64_t{0}, std::plus<>{}, slow), sum);
  }
}

// The threads that ran elements of one call each.
class threads_seen {
 public:
  void note() {
    thread_local std::uint64_t noted = 0;
    if (noted == id_) return;
    noted = id_;
    std::lock_guard<std::mutex> lock(mutex_);
    ids_.insert(std::this_thread::get_id());
  }
  [[nodiscard]] std::size_t count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return ids_.size();
  }

 private:
  static inline std::atomic<std::uint64_t> next_id{1};
  std::uint64_t const id_ = next_id.fetch_add(1);
  std::mutex mutex_;
  std::set<std::thread::id> ids_;
};

// The caller counts as one of the pool's threads: on a lazy pool of two workers, a call's elements run on the
// caller and at most one worker (its pieces split only while a worker slot is left beside the active ones and
// the caller), not on three threads that would share two cores.
TEST(AlgorithmEntry, TheCallerTakesAWorkersPlace) {
  std::size_t const n = entry_size();
  auto const [in, sum] = slow_input(n);
  fj::lazy_pool pool(2);
  for (int rep = 0; rep < 3; ++rep) {
    auto seen = std::make_unique<threads_seen>();
    fj::for_each_index(pool, std::size_t{0}, n, [&](std::size_t i) {
      seen->note();
      (void)slow(i);
    });
    EXPECT_LE(seen->count(), 2U) << "for_each ran on more threads than the pool has workers";
    seen = std::make_unique<threads_seen>();
    auto noted = [&](std::uint64_t x) {
      seen->note();
      return slow(x);
    };
    EXPECT_EQ(fj::transform_reduce(pool, in.begin(), in.end(), std::uint64_t{0}, std::plus<>{}, noted), sum);
    EXPECT_LE(seen->count(), 2U) << "transform_reduce ran on more threads than the pool has workers";
  }
}

// Elements take a hundred times as long or more on any thread but the caller: the pool's worker is the slow
// end.
class slow_worker_probe {
 public:
  void element(std::size_t i) {
    if (std::this_thread::get_id() == caller_) {
      (void)slow(i);
      return;
    }
    worker_elements_.fetch_add(1, std::memory_order_relaxed);
    std::size_t seen = first_worker_index_.load(std::memory_order_relaxed);
    while (i < seen && !first_worker_index_.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
    }
    // Asleep rather than busy: it leaves the core to the caller, and sanitizers do not slow a sleep down.
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  [[nodiscard]] std::size_t worker_elements() const { return worker_elements_.load(); }
  [[nodiscard]] std::size_t first_worker_index() const { return first_worker_index_.load(); }

 private:
  std::thread::id caller_ = std::this_thread::get_id();
  std::atomic<std::size_t> worker_elements_{0};
  std::atomic<std::size_t> first_worker_index_{std::numeric_limits<std::size_t>::max()};
};

// The pool's end takes a quarter of what is left as its share once the pool has no room for another worker
// (pool_share_divisor); a slow worker would then run all of it while the caller, done with everything else,
// waits. Instead the caller takes the share's blocks from its right end (caller_end), and the worker runs
// only the few it started meanwhile. The worker's first share begins at the first element it runs: from
// there a quarter of the way to the end for a loop (its shares are taken from the left), up to the end for a
// fold (from the right). A call is telling when that share was at least an eighth of the range. The OS
// decides when the worker comes and how much of a core each thread gets, so a telling call may still have
// the worker run most of its share (a caller that lost its core for a while): the test passes at the first
// telling call in which the worker ran less than half, and fails if three telling calls all had it run more.
// `call(probe)` runs one call and checks its result.
template <class Call>
void expect_caller_takes_the_slow_share(const char* what, std::size_t n, bool fold, Call call) {
  int telling = 0;
  for (int attempt = 0; attempt < 20 && telling < 3; ++attempt) {
    slow_worker_probe probe;
    call(probe);
    std::size_t const first = probe.first_worker_index();
    if (probe.worker_elements() == 0) continue;
    std::size_t const share = fold ? n - first : (n - first) / 4;
    if (share < n / 8) continue;
    if (probe.worker_elements() < share / 2) return;
    ++telling;
    std::printf(
        "[  NOTE    ] %s: the slow worker ran %zu elements of a share of about %zu (from element %zu)\n",
        what, probe.worker_elements(), share, first);
  }
  if (telling == 0) {
    std::printf("[  NOTE    ] %s: in no call did the pool's worker come early enough\n", what);
    return;
  }
  ADD_FAILURE() << what << ": in " << telling << " telling calls the slow worker ran its whole share";
}

TEST(AlgorithmEntry, TheCallerTakesTheRestOfASlowWorkersShare) {
  std::size_t const n = entry_size();
  fj::lazy_pool pool(2);
  expect_caller_takes_the_slow_share("for_each", n, false, [&](slow_worker_probe& probe) {
    std::vector<std::atomic<int>> visits(n);
    fj::for_each_index(pool, std::size_t{0}, n, [&](std::size_t i) {
      probe.element(i);
      visits[i].fetch_add(1, std::memory_order_relaxed);
    });
    std::size_t wrong = 0;
    for (auto& v : visits) wrong += v.load(std::memory_order_relaxed) == 1 ? 0 : 1;
    EXPECT_EQ(wrong, 0U) << "elements not visited exactly once";
  });
  // An element function that throws on the caller in a block of the worker's share (the loop's first share:
  // a quarter of the way from the worker's first element to the end): the exception reaches the caller.
  for (int attempt = 0; attempt < 10; ++attempt) {
    slow_worker_probe probe;
    bool thrown = false;
    auto const caller = std::this_thread::get_id();
    auto throw_in_share = [&](std::size_t i) {
      std::size_t const first = probe.first_worker_index();
      if (std::this_thread::get_id() == caller && first < n && i > first && i < first + (n - first) / 4) {
        thrown = true;
        throw element_error(i);
      }
      probe.element(i);
    };
    bool caught = false;
    try {
      fj::for_each_index(pool, std::size_t{0}, n, throw_in_share);
    } catch (const element_error&) {
      caught = true;
    }
    EXPECT_EQ(caught, thrown) << "an exception thrown in the caller's block of the worker's share was lost";
    if (thrown) break;
  }
  // A fold in index order: the caller's blocks of the share go between the worker's part of it and the
  // shares the worker took before (fold_shared).
  std::vector<std::size_t> index(n);
  std::iota(index.begin(), index.end(), std::size_t{0});
  auto const maps = random_affine(n);
  affine const serial = std::accumulate(maps.begin(), maps.end(), affine{}, compose{});
  expect_caller_takes_the_slow_share("transform_reduce", n, true, [&](slow_worker_probe& probe) {
    EXPECT_EQ(fj::transform_reduce(pool, index.begin(), index.end(), affine{}, compose{},
                                   [&](std::size_t i) {
                                     probe.element(i);
                                     return maps[i];
                                   }),
              serial);
  });

  // A search: the caller finds the match, then runs the part of the worker's share left of it.
  std::size_t const at = n - n / 4;
  for (int attempt = 0; attempt < 3; ++attempt) {
    slow_worker_probe probe;
    auto const found = fj::find_if(pool, index.begin(), index.end(), [&](std::size_t i) {
      probe.element(i);
      return i == at;
    });
    EXPECT_EQ(found - index.begin(), static_cast<std::ptrdiff_t>(at));
  }
}

// Several outside threads share one pool: each call's two ends are its own.
TEST(AlgorithmEntry, OutsideThreadsAtOnce) {
  std::size_t const n = entry_size() / 2;
  auto const [in, sum] = slow_input(n);
  on_entry_pools([&](fj::detail::pool_base& pool) {
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    threads.reserve(3);
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&] {
        for (int c = 0; c < 5; ++c) {
          if (fj::transform_reduce(pool, in.begin(), in.end(), std::uint64_t{0}, std::plus<>{}, slow) != sum)
            wrong.fetch_add(1);
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0);
  });
}

// The ends word: the caller takes single blocks from the left, a loop's pool end shares from the left, a
// fold's from the right, each share 1 / divisor of what is left (rounded up). Serially the sizes are exact;
// with three threads taking at once every block is taken exactly once.
TEST(AlgorithmEntry, TheEndsWordHandsOutEveryBlockOnce) {
  using fj::detail::algo::shared_ends;
  {
    shared_ends ends(10);
    std::size_t first = 0;
    std::size_t last = 0;
    ASSERT_TRUE(ends.take_right(first, last, 4));  // ceil(10 / 4) = 3
    EXPECT_EQ(first, 7U);
    EXPECT_EQ(last, 10U);
    ASSERT_TRUE(ends.take_left_share(first, last, 4));  // ceil(7 / 4) = 2
    EXPECT_EQ(first, 0U);
    EXPECT_EQ(last, 2U);
    std::size_t b = 0;
    ASSERT_TRUE(ends.take_left(b));
    EXPECT_EQ(b, 2U);
    ASSERT_TRUE(ends.take_right(first, last, 2));  // ceil(4 / 2) = 2
    EXPECT_EQ(first, 5U);
    EXPECT_EQ(last, 7U);
    ASSERT_TRUE(ends.take_left_share(first, last, 100));  // at least one
    EXPECT_EQ(first, 3U);
    EXPECT_EQ(last, 4U);
    ASSERT_TRUE(ends.take_left(b));
    EXPECT_EQ(b, 4U);
    EXPECT_FALSE(ends.take_left(b));
    EXPECT_FALSE(ends.take_right(first, last, 2));
    EXPECT_FALSE(ends.take_left_share(first, last, 2));
  }
  std::size_t const blocks = static_cast<std::size_t>(fj::test::scaled(200'000, 20'000));
  for (int round = 0; round < 5; ++round) {
    shared_ends ends(blocks);
    std::vector<std::atomic<int>> taken(blocks);
    auto mark = [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) taken[i].fetch_add(1, std::memory_order_relaxed);
    };
    std::thread right([&] {
      std::size_t first = 0;
      std::size_t last = 0;
      while (ends.take_right(first, last, 8)) mark(first, last);
    });
    std::thread left_shares([&] {
      std::size_t first = 0;
      std::size_t last = 0;
      while (ends.take_left_share(first, last, 8)) mark(first, last);
    });
    std::size_t b = 0;
    while (ends.take_left(b)) mark(b, b + 1);
    right.join();
    left_shares.join();
    std::size_t wrong = 0;
    for (auto& t : taken) wrong += t.load(std::memory_order_relaxed) == 1 ? 0 : 1;
    EXPECT_EQ(wrong, 0U) << "round " << round;
  }
}

// The share word: the pool's end refills it with one share after another once it is empty and takes blocks
// from its left; the caller takes single blocks from its right (in the algorithms only after the ends met,
// here all the time). Serially the ends are exact; with the two threads at once, in shares moving right (a
// loop's) and left (a fold's), every block is taken exactly once.
TEST(AlgorithmEntry, TheShareWordHandsOutEveryBlockOnce) {
  using fj::detail::algo::shared_ends;
  {
    shared_ends share(0);
    std::size_t b = 0;
    EXPECT_FALSE(share.take_right_block(b));
    share.hold(3, 6);
    EXPECT_EQ(share.left(), 3U);
    ASSERT_TRUE(share.take_right_block(b));
    EXPECT_EQ(b, 5U);
    ASSERT_TRUE(share.take_left(b));
    EXPECT_EQ(b, 3U);
    ASSERT_TRUE(share.take_right_block(b));
    EXPECT_EQ(b, 4U);
    EXPECT_FALSE(share.take_left(b));
    EXPECT_EQ(share.left(), 0U);
  }
  std::size_t const blocks = static_cast<std::size_t>(fj::test::scaled(200'000, 20'000));
  for (bool rightwards : {true, false}) {
    shared_ends share(0);
    std::vector<std::atomic<int>> taken(blocks);
    std::atomic<bool> done{false};
    std::thread caller([&] {
      std::size_t b = 0;
      // relaxed: the flag only ends the loop; the final check below comes after the join.
      while (!done.load(std::memory_order_relaxed)) {
        if (share.take_right_block(b)) taken[b].fetch_add(1, std::memory_order_relaxed);
      }
    });
    // Shares of 1 to 64 blocks, one after another, from the left end of the range or from its right.
    std::size_t const first_size = 17;
    std::size_t next = rightwards ? 0 : blocks;
    for (std::size_t size = first_size; rightwards ? next < blocks : next > 0; size = size % 64 + 1) {
      std::size_t const first = rightwards ? next : next - std::min(size, next);
      std::size_t const last = rightwards ? std::min(next + size, blocks) : next;
      share.hold(first, last);
      std::size_t b = 0;
      while (share.take_left(b)) taken[b].fetch_add(1, std::memory_order_relaxed);
      next = rightwards ? last : first;
    }
    done.store(true, std::memory_order_relaxed);
    caller.join();
    std::size_t wrong = 0;
    for (auto& t : taken) wrong += t.load(std::memory_order_relaxed) == 1 ? 0 : 1;
    EXPECT_EQ(wrong, 0U) << (rightwards ? "shares moving right" : "shares moving left");
  }
}

}  // namespace
