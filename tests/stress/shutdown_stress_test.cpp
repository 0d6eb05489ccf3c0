// Stress: pools shut down and destroyed at random moments while outside threads keep submitting small trees
// with fj::sync_wait. Every submission must resolve to its correct value or to fj::pool_closed_error (the
// documented error), nothing else; no round may hang (a watchdog aborts with the seed and the round) and the
// sanitizers must stay quiet.
//
// What "destroyed while outside threads submit" can mean without undefined behaviour: a thread may not call
// into a pool object that has been destroyed, and forkjoin has no shared handle to a pool, so destruction can
// only race submitters that reach the pool through a handle of their own. The rounds come in three modes:
//   shutdown:      one controller thread calls pool.shutdown() at a random moment (a second one calls it at
//                  the same time, to race the two) while the submitters call sync_wait on the pool directly.
//                  Submitters stop after their first fj::pool_closed_error; the pool object is destroyed
//                  once they have all stopped.
//   shutdown+drop: the test's handle: the pool lives in a std::shared_ptr that submitters copy out of a
//                  shared slot for each submission. At a random moment the controller calls shutdown(),
//                  empties the slot and drops its reference; the destructor runs on whichever thread holds
//                  the last reference, often a submitter right after its sync_wait returned, while the worker
//                  that completed its root may still be finishing the completion (root.hpp LIFETIME notes).
//   drop:          as shutdown+drop without the shutdown() call: the pool is destroyed (its destructor shuts
//                  it down) by the last holder, so no submission can ever see it closed.
// Checks: each value is right; fj::pool_closed_error appears only after shutdown began (never in drop mode);
// a submission that starts after shutdown() has returned gets fj::pool_closed_error; every root that was
// accepted had finished when shutdown() returned (roots finished at that moment == values returned later).

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/fib.hpp"
#include "support/mix.hpp"
#include "support/test_config.hpp"
#include "support/watchdog.hpp"

namespace {

using fj::test::mix;

enum class mode { shutdown, shutdown_then_drop, drop };

const char* name_of(mode m) {
  switch (m) {
    case mode::shutdown: return "shutdown";
    case mode::shutdown_then_drop: return "shutdown+drop";
    case mode::drop: return "drop";
  }
  return "?";
}

// Counters of one round. Relaxed increments: they are read after every thread of the round has been joined.
struct round_counters {
  std::atomic<std::uint64_t> submissions{0};
  std::atomic<std::uint64_t> values{0};
  std::atomic<std::uint64_t> closed{0};
  std::atomic<std::uint64_t> wrong_values{0};
  std::atomic<std::uint64_t> other_errors{0};
  std::atomic<std::uint64_t> early_closed{0};    // pool_closed_error before shutdown was asked for
  std::atomic<std::uint64_t> accepted_late{0};   // a value for a submission started after shutdown returned
  std::atomic<std::uint64_t> roots_finished{0};  // root bodies that ran to the end
  std::atomic<std::uint64_t> destroyed_by_submitter{0};

  void bump(std::atomic<std::uint64_t>& c) { c.fetch_add(1, std::memory_order_relaxed); }
  static std::uint64_t get(const std::atomic<std::uint64_t>& c) { return c.load(std::memory_order_relaxed); }
};

// A small tree: fib(n) with a fork and a call per node, counted when its body finishes.
fj::task<long> counted_fib(round_counters* counters, int n) {
  long r = 0;
  co_await fj::call(&r, fj::test::fib, n);
  counters->bump(counters->roots_finished);
  co_return r;
}

// Whether the current thread is a submitter (to see who ran a pool's destructor).
thread_local bool tls_is_submitter = false;

// The test's own handle to a pool: records which kind of thread destroyed it.
template <class Pool>
struct owned_pool {
  owned_pool(std::size_t workers, round_counters* c) : pool(workers), counters(c) {}
  owned_pool(const owned_pool&) = delete;
  owned_pool& operator=(const owned_pool&) = delete;
  ~owned_pool() {
    if (tls_is_submitter) counters->bump(counters->destroyed_by_submitter);
  }
  Pool pool;
  round_counters* counters;
};

struct round_plan {
  mode how = mode::shutdown;
  bool lazy = false;
  std::size_t workers = 1;
  int delay_us = 0;
  std::uint64_t seed = 0;

  [[nodiscard]] std::string describe() const {
    return std::string(name_of(how)) + " " + (lazy ? "lazy" : "busy") + std::to_string(workers) + " after " +
           std::to_string(delay_us) + " us";
  }
};

round_plan draw_plan(std::uint64_t h) {
  round_plan p;
  p.how = static_cast<mode>(h % 3);
  p.lazy = (h >> 2) % 2 == 1;
  p.workers = 1 + static_cast<std::size_t>((h >> 3) % 4);
  // A quarter of the rounds shut down at once, before or during the first submissions.
  p.delay_us = (h >> 5) % 4 == 0 ? 0 : static_cast<int>((h >> 8) % 3000);
  p.seed = mix(h);
  return p;
}

constexpr std::size_t k_submitters = 3;

// One submission from a submitter: n from the submitter's own random sequence.
template <class Pool>
bool submit_once(Pool& pool, round_counters& c, std::uint64_t& rng, const std::atomic<bool>& shutdown_asked,
                 const std::atomic<bool>& shutdown_returned) {
  rng = mix(rng);
  int const n = 6 + static_cast<int>(rng % 13);  // fib(6..18)
  // acquire: pairs with the release stores of the controller, so that "asked"/"returned" really precede us.
  bool const after_shutdown = shutdown_returned.load(std::memory_order_acquire);
  c.bump(c.submissions);
  try {
    long const v = fj::sync_wait(pool, counted_fib, &c, n);
    c.bump(v == fj::test::fib_value(n) ? c.values : c.wrong_values);
    if (after_shutdown) c.bump(c.accepted_late);
    return true;
  } catch (const fj::pool_closed_error&) {
    c.bump(c.closed);
    // acquire: as above; the controller stores "asked" before calling shutdown().
    if (!shutdown_asked.load(std::memory_order_acquire)) c.bump(c.early_closed);
    return false;
  } catch (...) {
    c.bump(c.other_errors);
    return false;
  }
}

template <class Pool>
void run_shutdown_round(const round_plan& plan, round_counters& c, std::uint64_t& finished_at_shutdown) {
  Pool pool(plan.workers);
  std::atomic<bool> shutdown_asked{false};
  std::atomic<bool> shutdown_returned{false};
  std::vector<std::thread> submitters;
  submitters.reserve(k_submitters);
  for (std::size_t t = 0; t < k_submitters; ++t) {
    submitters.emplace_back([&, t] {
      std::uint64_t rng = plan.seed + t;
      while (submit_once(pool, c, rng, shutdown_asked, shutdown_returned)) {
      }
      // Closed stays closed.
      (void)submit_once(pool, c, rng, shutdown_asked, shutdown_returned);
    });
  }
  std::this_thread::sleep_for(std::chrono::microseconds(plan.delay_us));
  // release: pairs with the acquire loads in submit_once().
  shutdown_asked.store(true, std::memory_order_release);
  std::thread second([&] { pool.shutdown(); });
  pool.shutdown();
  finished_at_shutdown = round_counters::get(c.roots_finished);
  // release: pairs with the acquire load in submit_once().
  shutdown_returned.store(true, std::memory_order_release);
  second.join();
  for (auto& s : submitters) s.join();
}

template <class Pool>
void run_drop_round(const round_plan& plan, round_counters& c, std::uint64_t& finished_at_shutdown) {
  using handle = std::shared_ptr<owned_pool<Pool>>;
  std::mutex slot_mutex;
  handle slot = std::make_shared<owned_pool<Pool>>(plan.workers, &c);
  std::atomic<bool> shutdown_asked{false};
  std::atomic<bool> shutdown_returned{false};
  std::vector<std::thread> submitters;
  submitters.reserve(k_submitters);
  for (std::size_t t = 0; t < k_submitters; ++t) {
    submitters.emplace_back([&, t] {
      tls_is_submitter = true;
      std::uint64_t rng = plan.seed + t;
      while (true) {
        handle mine;
        {
          std::lock_guard lock(slot_mutex);
          mine = slot;
        }
        if (!mine) break;
        bool const accepted = submit_once(mine->pool, c, rng, shutdown_asked, shutdown_returned);
        mine.reset();  // may run the pool's destructor, right after our root completed
        if (!accepted) break;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::microseconds(plan.delay_us));
  handle controller;
  {
    std::lock_guard lock(slot_mutex);
    controller = slot;
  }
  if (plan.how == mode::shutdown_then_drop) {
    // release: pairs with the acquire loads in submit_once().
    shutdown_asked.store(true, std::memory_order_release);
    controller->pool.shutdown();
    finished_at_shutdown = round_counters::get(c.roots_finished);
    shutdown_returned.store(true, std::memory_order_release);
  }
  {
    std::lock_guard lock(slot_mutex);
    slot.reset();
  }
  controller.reset();  // the destructor runs here, or on the last submitter still holding the pool
  for (auto& s : submitters) s.join();
  if (plan.how == mode::drop) finished_at_shutdown = round_counters::get(c.roots_finished);
}

struct totals {
  std::uint64_t rounds = 0;
  std::uint64_t failed_rounds = 0;
  std::uint64_t submissions = 0;
  std::uint64_t values = 0;
  std::uint64_t closed = 0;
  std::uint64_t wrong = 0;
  std::uint64_t destroyed_by_submitter = 0;
};

template <class Pool>
void run_round(const round_plan& plan, round_counters& c, std::uint64_t& finished_at_shutdown) {
  if (plan.how == mode::shutdown) {
    run_shutdown_round<Pool>(plan, c, finished_at_shutdown);
  } else {
    run_drop_round<Pool>(plan, c, finished_at_shutdown);
  }
}

TEST(ShutdownStress, EverySubmissionGetsItsValueOrPoolClosedError) {
  std::uint64_t const seed = fj::test::seed();
  fj::test::watchdog dog;
  int const rounds = static_cast<int>(fj::test::scaled(1200, 300));
  totals sum;
  for (int r = 0; r < rounds; ++r) {
    round_plan const plan = draw_plan(mix(seed + static_cast<std::uint64_t>(r)));
    std::string const label = "round " + std::to_string(r) + " (" + plan.describe() +
                              ", FJ_TEST_SEED=" + std::to_string(seed) + ")";
    round_counters c;
    std::uint64_t finished_at_shutdown = 0;
    {
      // The pool may already be gone when the watchdog fires: describe only the round and its counters.
      auto const watch = dog.watch(label, [&] {
        return "submissions=" + std::to_string(round_counters::get(c.submissions)) +
               " values=" + std::to_string(round_counters::get(c.values)) +
               " closed=" + std::to_string(round_counters::get(c.closed)) +
               " roots finished=" + std::to_string(round_counters::get(c.roots_finished)) + "\n";
      });
      if (plan.lazy) {
        run_round<fj::lazy_pool>(plan, c, finished_at_shutdown);
      } else {
        run_round<fj::busy_pool>(plan, c, finished_at_shutdown);
      }
    }
    std::uint64_t const values = round_counters::get(c.values);
    std::uint64_t const closed = round_counters::get(c.closed);
    bool ok = true;
    auto fail = [&](bool bad, const char* what, std::uint64_t n) {
      if (!bad) return;
      ok = false;
      ADD_FAILURE() << label << ": " << what << " (" << n << ")";
    };
    fail(round_counters::get(c.wrong_values) != 0, "wrong values", round_counters::get(c.wrong_values));
    fail(round_counters::get(c.other_errors) != 0, "an error other than fj::pool_closed_error",
         round_counters::get(c.other_errors));
    fail(round_counters::get(c.early_closed) != 0, "fj::pool_closed_error before shutdown was asked for",
         round_counters::get(c.early_closed));
    fail(round_counters::get(c.accepted_late) != 0, "a submission started after shutdown() returned ran",
         round_counters::get(c.accepted_late));
    fail(values + closed != round_counters::get(c.submissions), "submissions that resolved to nothing",
         round_counters::get(c.submissions) - values - closed);
    fail(finished_at_shutdown != values, "roots still unfinished when shutdown() returned",
         values - finished_at_shutdown);
    if (plan.how == mode::drop)
      fail(closed != 0, "fj::pool_closed_error although nobody shut the pool down", closed);
    if (plan.how == mode::shutdown)
      fail(closed < 2 * k_submitters, "a submitter never saw the pool closed (twice)", closed);
    ++sum.rounds;
    if (!ok) ++sum.failed_rounds;
    sum.submissions += round_counters::get(c.submissions);
    sum.values += values;
    sum.closed += closed;
    sum.wrong += round_counters::get(c.wrong_values);
    sum.destroyed_by_submitter += round_counters::get(c.destroyed_by_submitter);
  }
  std::printf(
      "[shutdown stress] figures: rounds=%llu submissions=%llu values=%llu pool_closed_error=%llu wrong=%llu "
      "pools destroyed by a submitter=%llu hangs=0 (watchdog: %llds)\n",
      static_cast<unsigned long long>(sum.rounds), static_cast<unsigned long long>(sum.submissions),
      static_cast<unsigned long long>(sum.values), static_cast<unsigned long long>(sum.closed),
      static_cast<unsigned long long>(sum.wrong), static_cast<unsigned long long>(sum.destroyed_by_submitter),
      static_cast<long long>(dog.deadline().count()));
  std::printf("[shutdown stress] %llu passed, %llu failed\n",
              static_cast<unsigned long long>(sum.rounds - sum.failed_rounds),
              static_cast<unsigned long long>(sum.failed_rounds));
  // The races this test is about must actually have happened.
  EXPECT_GT(sum.values, 0u);
  EXPECT_GT(sum.closed, 0u);
}

}  // namespace
