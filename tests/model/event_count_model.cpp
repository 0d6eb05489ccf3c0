// Relacy model of the event count (include/forkjoin/ext/event_count.hpp, docs/protocols/sleep.md
// §"Event count"): prepare_wait / re-check / cancel_wait or wait, and notify_one.
//
// The futex is modelled by what the kernel guarantees: FUTEX_WAIT compares the word with the expected value
// and queues the caller atomically with respect to FUTEX_WAKE on the same word. A mutex and a condition
// variable give exactly that: the compare-and-sleep and the wake are critical sections of one mutex, so a
// wake that comes first is visible to the compare. Relacy wakes condition-variable waiters spuriously at
// random, as futex_wait may return early.
//
// Checked in every execution: liveness (no lost wake-up: every waiter finishes; Relacy reports a deadlock
// when all remaining threads sleep), and publication (a waiter returning from wait() reads the notifier's
// plain data without a data race). Every atomic operation carries the `// model:` marker of its production
// twin (tests/model/drift_check.cpp).

#include <cstdint>

#include "model_support.hpp"

namespace {

using fj_model::ld;
using fj_model::rmw;

constexpr std::uint64_t k_one_waiter = 1;
constexpr std::uint64_t k_waiter_mask = (std::uint64_t{1} << 32) - 1;
constexpr std::uint64_t k_one_epoch = std::uint64_t{1} << 32;

std::uint32_t epoch_of(std::uint64_t state) { return static_cast<std::uint32_t>(state >> 32); }

// fj::event_count, member for member, with the futex replaced by a mutex and a condition variable.
class model_event_count {
 public:
  void init() { state_.store(0, rl::mo_relaxed, RL_INFO); }

  std::uint32_t prepare_wait() {
    const std::uint64_t old = state_.fetch_add(k_one_waiter, rmw(rl::mo_acquire, "ec.prepare_wait"),
                                               RL_INFO);  // model: ec.prepare_wait
    return epoch_of(old);
  }

  void cancel_wait() {
    state_.fetch_sub(k_one_waiter, rmw(rl::mo_relaxed, "ec.cancel_wait"), RL_INFO);  // model: ec.cancel_wait
  }

  void wait(std::uint32_t key) {
    for (;;) {
      const std::uint64_t now =
          state_.load(ld(rl::mo_acquire, "ec.wait.load"), RL_INFO);  // model: ec.wait.load
      if (epoch_of(now) != key) break;
      sleep(now);
    }
    state_.fetch_sub(k_one_waiter, rmw(rl::mo_relaxed, "ec.wait.leave"), RL_INFO);  // model: ec.wait.leave
  }

  void notify_one() {
    if (fj_model::protocol_mutant("ec.notify.load_skip")) {
      // Mutant: decide from a plain load and skip the RMW when nobody seems to wait
      // (docs/traps.md "Event count: re-check and always notify").
      if ((state_.load(rl::mo_relaxed, RL_INFO) & k_waiter_mask) == 0) return;
    }
    const std::uint64_t old =
        state_.fetch_add(k_one_epoch, rmw(rl::mo_release, "ec.notify"), RL_INFO);  // model: ec.notify
    if ((old & k_waiter_mask) != 0) wake();
  }

  // await(ready), with `ready` re-checked after prepare_wait unless a mutant drops the re-check.
  template <class Ready>
  void await(Ready ready) {
    while (!ready()) {
      const std::uint32_t k = prepare_wait();
      if (!fj_model::protocol_mutant("ec.await.no_recheck") && ready()) {
        cancel_wait();
        return;
      }
      wait(k);
    }
  }

 private:
  // FUTEX_WAIT_PRIVATE on the epoch half: sleeps only if the epoch is still the one seen.
  void sleep(std::uint64_t seen) {
    futex_lock_.lock(RL_INFO);
    if (epoch_of(state_.load(rl::mo_relaxed, RL_INFO)) == epoch_of(seen))
      futex_queue_.wait(futex_lock_, RL_INFO);
    futex_lock_.unlock(RL_INFO);
  }

  // FUTEX_WAKE_PRIVATE, one thread.
  void wake() {
    futex_lock_.lock(RL_INFO);
    futex_queue_.notify_one(RL_INFO);
    futex_lock_.unlock(RL_INFO);
  }

  rl::atomic<std::uint64_t> state_;
  rl::mutex futex_lock_;
  rl::condition_variable futex_queue_;
};

// Threads 0..W-1 wait for a unit of work each; threads W..2W-1 each make one unit available and notify_one,
// as the lazy pool's submitters do. A waiter takes a unit with a CAS; the notifier writes `payload` before
// making its unit available, and a waiter that returns from wait() reads it.
template <int Waiters>
struct event_count_suite : rl::test_suite<event_count_suite<Waiters>, 2 * Waiters> {
  model_event_count ec;
  rl::atomic<int> units;
  rl::var<int> payload[Waiters];
  int finished;

  void before() {
    ec.init();
    units.store(0, rl::mo_relaxed, RL_INFO);
    finished = 0;
  }

  bool try_take() {
    int n = units.load(rl::mo_relaxed, RL_INFO);
    while (n > 0) {
      if (units.compare_exchange_weak(n, n - 1, rl::mo_relaxed, RL_INFO)) return true;
    }
    return false;
  }

  void thread(unsigned index) {
    const int i = static_cast<int>(index);
    if (i < Waiters) {
      ec.await([this] { return try_take(); });
      finished += 1;
    } else {
      payload[i - Waiters](RL_INFO) = i;
      units.fetch_add(1, rl::mo_relaxed, RL_INFO);
      ec.notify_one();
    }
  }

  void after() { RL_ASSERT(finished == Waiters); }
};

// One waiter, one notifier, and publication: the waiter reads the notifier's payload after its wait()
// returns (wait's acquire load pairs with notify's release RMW).
struct publication_suite : rl::test_suite<publication_suite, 2> {
  model_event_count ec;
  rl::atomic<bool> ready;
  rl::var<int> payload;

  void before() {
    ec.init();
    ready.store(false, rl::mo_relaxed, RL_INFO);
  }

  void thread(unsigned index) {
    if (index == 0) {
      while (!ready.load(rl::mo_relaxed, RL_INFO)) {
        const std::uint32_t k = ec.prepare_wait();
        if (ready.load(rl::mo_relaxed, RL_INFO)) {
          ec.cancel_wait();
          break;
        }
        ec.wait(k);
        // Returned from wait(): the one notify has happened and published the payload.
        RL_ASSERT(payload(RL_INFO) == 7);
      }
    } else {
      payload(RL_INFO) = 7;
      ready.store(true, rl::mo_relaxed, RL_INFO);
      ec.notify_one();
    }
  }
};

template <class Suite>
fj_model::scenario make(const char* name, const char* description, unsigned threads,
                        rl::scheduler_type_e scheduler, rl::iteration_t iterations, unsigned bound = 0) {
  return {"production", name,       description, threads,
          scheduler,    iterations, bound,       [](rl::test_params& p) { return rl::simulate<Suite>(p); }};
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fj_model::scenario> scenarios;
  scenarios.push_back(make<publication_suite>("publication", "1 waiter (plain loop), 1 notifier: notify_one",
                                              2, rl::fair_full_search_scheduler_type, 0));
  scenarios.push_back(make<event_count_suite<1>>("one-unit", "1 waiter (await), 1 notifier: notify_one", 2,
                                                 rl::fair_full_search_scheduler_type, 0));
  scenarios.push_back(make<event_count_suite<2>>("two-units",
                                                 "2 waiters (await), 2 notifiers: notify_one each", 4,
                                                 rl::fair_context_bound_scheduler_type, 0, 2));
  scenarios.push_back(make<event_count_suite<2>>("two-units-random",
                                                 "2 waiters (await), 2 notifiers: notify_one each", 4,
                                                 rl::random_scheduler_type, 100000));
  return fj_model::main_for("event_count", std::move(scenarios), argc, argv);
}
