#pragma once
// The state behind a pool_core (include/forkjoin/detail/pool_core.hpp), private to the library: the workers,
// their threads and victim choices, the shared queue, the lazy pool's accounting, and the scheduler loop's
// parts. Construction, destruction and submission are src/pool_core.cpp; the loop is src/scheduler.cpp.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "forkjoin/detail/build_mode.hpp"
#include "forkjoin/detail/inflight_counter.hpp"
#include "forkjoin/detail/lazy_accounting.hpp"
#include "forkjoin/detail/os_thread.hpp"
#include "forkjoin/detail/pool_core.hpp"
#include "forkjoin/detail/root.hpp"
#include "forkjoin/detail/shared_queue.hpp"
#include "forkjoin/detail/steal.hpp"
#include "forkjoin/detail/victim_choice.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "forkjoin/topology.hpp"

namespace fj::detail {

// The steady clock in nanoseconds: lingering workers' deadlines and the entry's "called again soon" test.
inline std::uint64_t steady_nanoseconds() noexcept {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

class pool_engine {
 public:
  using idle_policy = pool_core::idle_policy;

  // Places the workers and starts their threads. `self` is the pool_core the workers belong to.
  pool_engine(pool_core& self, const pool_core::config& cfg, build_mode mode);

  pool_engine(const pool_engine&) = delete;
  pool_engine& operator=(const pool_engine&) = delete;
  ~pool_engine() = default;

  // ---- src/pool_core.cpp ----

  void shutdown();
  // Waits until no thread is inside submit_any() or submit_to() (the pool's destructor).
  void wait_for_submitters() noexcept;
  void submit_any(submission* node) noexcept;
  void submit_to(std::size_t target, submission* node) noexcept;
  [[nodiscard]] std::vector<worker_stats> stats() const;
  [[nodiscard]] std::size_t sleeping() const noexcept;

  pool_core& self_;
  bool const steal_;
  idle_policy const idle_;
  std::size_t const stack_budget_;
  // pool_options::linger in nanoseconds; used only where workers sleep and steal (lazy pools).
  std::uint64_t const linger_ns_;
  void (*const chaos_)() noexcept;  // the user's chaos hook, or null (build_mode.hpp)
  topology placement_ = topology::uniform(1);
  bool pinned_ = false;
  std::string description_;
  std::vector<std::unique_ptr<worker_context>> workers_;
  std::vector<victim_choice> victims_;  // one per worker
  std::unique_ptr<lazy_accounting> accounting_;
  std::unique_ptr<os_thread[]> threads_;

  std::atomic<std::size_t> next_target_{0};
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> submitters_{0};
  std::atomic<std::uint64_t> dropped_off_worker_{
      0};  // pool_core::count_dropped_exception()  // threads inside submit_to/any(), which the destructor
           // waits for
  shared_queue shared_;
  inflight_counter inflight_;
  // Attached priority sources (priority.md §10): a source pointer and the workers inside it, per slot.
  struct alignas(128) priority_slot {
    std::atomic<priority_source*> source{nullptr};
    std::atomic<std::size_t> users{0};
    // The attached group's tasks in its storage, kept by the group (attach_priority_source): here, so that an
    // idle worker reads it without entering the slot. Zero while the slot is free.
    alignas(64) std::atomic<std::size_t> queued{0};
  };
  mutable priority_slot priority_slots_[pool_core::k_priority_sources];
  std::atomic<std::size_t> priority_attached_{0};  // slots in use: a hint that saves the scan when zero
  // Workers between their registration in sleep() and their return from it (registered in their event count,
  // or about to cancel). wake_one() reads it after its fence and stops there when it is zero, instead of
  // reading every worker's event count (sleep.md "The sleeper count"). Written only around sleeps: on a line
  // of its own, so that wakers' reads stay hits while every worker is awake.
  struct alignas(128) sleeper_count {
    std::atomic<std::size_t> n{0};
  };
  sleeper_count sleepers_;
  std::mutex priority_mutex_;  // serialises attach and detach
  std::mutex shutdown_mutex_;
  bool stopped_ = false;

  // A publication point of the scheduler: yields or spins at random in chaos tests (chaos.hpp).
  void chaos_point() const noexcept {
    if (chaos_ != nullptr) chaos_();
  }

  // A worker for work that may go anywhere: round robin.
  [[nodiscard]] std::size_t any_worker() noexcept;
  // After a push on the shared queue: wakes one sleeping worker, if any (it need not be the one that takes
  // the task; a worker that is awake takes it before it sleeps).
  void wake_a_sleeper() noexcept;
  // Group `group` has no awake thief while work is active: wake one of its sleeping workers (not `self`).
  void wake_a_thief(std::size_t group, const worker_context* self) noexcept;
  // Notifies the first worker, counting round from `first`, that `eligible` accepts and that is registered
  // in its event count, if there is one.
  // `as_thief`: only to keep a thief awake, so the worker does not linger after it (woken_as_thief).
  template <class Eligible>
  void wake_one(std::size_t first, Eligible eligible, bool as_thief = false) noexcept;
  void stop_workers() noexcept;
  // A worker that registered in sleep() is awake again (it cancelled, or its wait returned).
  void leave_sleepers() noexcept {
    // relaxed: only the sleeping worker's own registration matters to a waker, and it is over: a waker that
    // still reads it scans the event counts for nothing.
    sleepers_.n.fetch_sub(1, std::memory_order_relaxed);
  }

  // ---- src/scheduler.cpp ----

  // The worker's thread: the scheduler loop.
  void run(worker_context& w);
  void pin(worker_context& w) noexcept;
  void become_active(worker_context& w) noexcept;
  void become_thief(worker_context& w) noexcept;
  // Work this worker could take now without sleeping.
  [[nodiscard]] bool work_visible(worker_context& w) const noexcept;
  // A lazy worker tries k_spin_rounds times to find work before it first tries to sleep, then every
  // k_awake_rounds while it must stay awake (its group's last awake thief while a worker is active).
  static constexpr std::uint32_t k_spin_rounds = 256;
  static constexpr std::uint32_t k_awake_rounds = 64;
  // Both return true when the worker must stay awake: it spins k_awake_rounds before trying to sleep again.
  bool sleep(worker_context& w);
  bool idle(worker_context& w, std::uint32_t round);
  // Past its k_spin_rounds, whether a lazy worker lingers (pool_options::linger) instead of sleeping: it
  // reads the clock and yields every k_linger_rounds.
  static constexpr std::uint32_t k_linger_rounds = 64;
  bool linger(worker_context& w, std::uint32_t round) noexcept;
  // The idle round after `round`. A long linger can count past 2^32 rounds: the count then goes on just past
  // the spin (not to 0, which would spin again and restart the linger), keeping its cadence of clock reads.
  static constexpr std::uint32_t next_idle_round(std::uint32_t round) noexcept {
    return round == ~std::uint32_t{0} ? k_spin_rounds + 1 : round + 1;
  }
  // Runs a task handed over through the inbox or the shared queue: a root, or a task that moved itself here.
  void run_submission(worker_context& w, submission* s);
  // Runs a continuation left behind on w's own deque (steal.hpp take_left_behind).
  bool resume_left_behind(worker_context& w);
  // Takes tasks from an attached priority source and runs them, at most k_priority_batch in a row
  // (priority.md §10).
  static constexpr std::uint32_t k_priority_batch = 64;
  bool run_priority(worker_context& w);
  // Whether an attached priority source holds a task (the re-check in sleep()).
  [[nodiscard]] bool priority_visible() const noexcept;
  // Steals one continuation from another worker and runs it.
  bool try_steal(worker_context& w);
  void run_stolen(worker_context& w, const stolen_continuation& stolen);
  // Runs a child spawned with fj::scope that this worker took from a deque (spawn.md).
  void run_spawned(worker_context& w, spawn_record* child);
};

template <class Eligible>
void pool_engine::wake_one(std::size_t first, Eligible eligible, bool as_thief) noexcept {
  // seq_cst fence: pairs with the fence in sleep() (store buffering): either that worker's re-check sees
  // what the caller published before this call (a push on the shared queue, active_/thieves_), or we see
  // its registration in its event count below.
  seq_cst_fence();
  // relaxed: after fence X, against the sleeper's increment before its fence Y (sleep.md "The sleeper
  // count"): if Y precedes X this reads the increment (or a later value, still counting that sleeper until
  // it is back), so zero means that every worker that will sleep re-checks after our fence and sees what
  // the caller published. One read of a line written only around sleeps, instead of one per worker.
  if (sleepers_.n.load(std::memory_order_relaxed) == 0) return;
  std::size_t const n = workers_.size();
  for (std::size_t k = 0; k < n; ++k) {
    worker_context& w = *workers_[(first + k) % n];
    if (eligible(w) && w.sleep.waiters() != 0) {
      // relaxed: published to the worker by the notify's release RMW, which its wait's acquire load reads.
      if (as_thief) w.woken_as_thief.store(true, std::memory_order_relaxed);
      w.sleep.notify_one();
      return;
    }
  }
}

}  // namespace fj::detail
