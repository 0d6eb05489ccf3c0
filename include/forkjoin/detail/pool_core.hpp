#pragma once
// The engine shared by forkjoin's pools (paper III-D): worker threads, their deques and submission queues,
// the scheduler loop that runs submitted tasks and steals continuations, and the idle policy. busy_pool
// (spin), lazy_pool (sleep, keeping one thief awake per NUMA group while work is active) and unit_pool (one
// worker, no stealing) configure it. The sleep protocol is docs/protocols/sleep.md.

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "forkjoin/detail/atomics.hpp"
#include "forkjoin/detail/chaos.hpp"
#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/os_thread.hpp"
#include "forkjoin/detail/root.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/stack_ownership.hpp"
#include "forkjoin/detail/submission.hpp"
#include "forkjoin/detail/transfer.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/pool_options.hpp"
#include "forkjoin/topology.hpp"

namespace fj::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class pool_core {
 public:
  enum class idle_policy {
    spin,   // busy_pool: keep stealing, yielding the CPU now and then
    sleep,  // lazy_pool and unit_pool: sleep on the worker's event count (sleep.md)
  };

  struct config {
    pool_options options;
    bool steal = true;  // false: a single worker, no thieves
    idle_policy idle = idle_policy::spin;
    const char* kind = "pool";
  };

  explicit pool_core(const config& cfg)
      : steal_(cfg.steal), idle_(cfg.idle), stack_budget_(cfg.options.stack_budget) {
    if (cfg.options.workers == 0)
      throw invalid_config_error("a pool needs at least one worker (asked for 0)");
    if (stack_budget_ < segmented_stack::k_first_stacklet_bytes)
      throw invalid_config_error("stack_budget must be at least " +
                                 std::to_string(segmented_stack::k_first_stacklet_bytes) +
                                 " bytes, one stacklet (asked for " + std::to_string(stack_budget_) + ")");
    std::size_t const n = cfg.options.workers;
    // Decided once, before any worker exists, so that every worker sees the same fence mode (atomics.hpp).
    enable_asymmetric_fences();
    // Placement: pinned, with no more workers than cores, worker i goes to core i and victims follow the
    // paper's Eq. 6; otherwise the OS places the workers and victims are uniform. NUMA groups (one awake
    // thief each in the lazy pool) come from the topology whenever the workers fit.
    topology const found = topology::discover();
    bool const fits = n <= found.size();
    pinned_ = fits && cfg.options.pinning == pin_policy::cores;
    placement_ = fits ? found.subset(first_n(n)) : topology::uniform(n, "more workers than cores");
    groups_ = std::max<std::size_t>(1, placement_.numa_nodes());
    thieves_ = std::make_unique<std::atomic<std::int64_t>[]>(groups_);
    description_ = std::string(cfg.kind) + ": " + std::to_string(n) + " worker(s)" +
                   (pinned_ ? ", pinned one per core (victims by Eq. 6)" : ", not pinned (uniform victims)") +
                   "; topology: " + found.description() +
                   (fits ? "" : " (oversubscribed: uniform random victims)");

    workers_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      workers_.push_back(std::make_unique<worker_context>(this, i));
      workers_.back()->rng_state = 0x9E3779B97F4A7C15ULL * (i + 1);
      workers_.back()->group = fits ? placement_.numa_group(i) : 0;
      samplers_.emplace_back(placement_, i, 0x5DEECE66DULL + i);
    }
    for (std::size_t i = 0; i < n; ++i) {
      // relaxed: published to the workers by thread creation.
      thieves_[workers_[i]->group].fetch_add(1, std::memory_order_relaxed);
    }
    threads_ = std::make_unique<os_thread[]>(n);
    try {
      for (std::size_t i = 0; i < n; ++i) {
        threads_[i].start([this, i] { run(*workers_[i]); }, cfg.options.thread_stack_size);
      }
    } catch (...) {
      stop_workers();
      throw;
    }
  }

  pool_core(const pool_core&) = delete;
  pool_core& operator=(const pool_core&) = delete;

  ~pool_core() {
    shutdown();
    // A thread of another pool that moved a task here may still be inside submit_to(), past its push: the
    // task may have run and finished its root already, which let shutdown() return. acquire: pairs with the
    // release fetch_sub in submit_to().
    while (submitters_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  }

  // Refuses new roots (sync_wait then throws fj::pool_closed_error), waits for every accepted root to finish,
  // and stops the workers. Idempotent; the destructor calls it. From one of the pool's own workers it throws
  // fj::deadlock_error (from the destructor, which is noexcept, that terminates with the message).
  void shutdown() {
    if (is_own_worker()) {
      throw deadlock_error(
          "fj: a pool was shut down or destroyed from one of its own workers, which would wait for itself; "
          "shut it down from a thread outside the pool");
    }
    std::lock_guard lock(shutdown_mutex_);
    if (stopped_) return;
    inflight_.close_and_wait();
    stop_workers();
    stopped_ = true;
  }

  [[nodiscard]] bool is_own_worker() const noexcept {
    worker_context* w = tls_worker;
    return w != nullptr && w->pool == this;
  }

  [[nodiscard]] std::size_t size() const noexcept { return workers_.size(); }

  // Workers registered as sleeping right now (a snapshot, for tests and monitoring).
  [[nodiscard]] std::size_t sleeping() const noexcept {
    std::size_t n = 0;
    for (const auto& w : workers_) n += w->sleep.waiters() != 0 ? 1 : 0;
    return n;
  }
  [[nodiscard]] const std::string& description() const noexcept { return description_; }

  // pool_options::stack_budget: the most stacklet memory any stack of this pool may hold.
  [[nodiscard]] std::size_t stack_budget() const noexcept { return stack_budget_; }

  // Hands a root (kind root, its own stack as home) to whichever worker takes it first. Throws
  // fj::pool_closed_error once shutdown has begun.
  void submit_root(root_base& root, frame* task) {
    if (!inflight_.try_add()) throw pool_closed_error();
    root.inflight = &inflight_;
    root.node.task = task;
    submit_any(&root.node);
  }

  // The roots this pool must finish before it stops: its own, and those whose tasks moved onto it.
  [[nodiscard]] inflight_counter& inflight() noexcept { return inflight_; }

  // Hands a suspended task to any worker: the pool's shared queue, from which every worker takes work before
  // it steals. A worker that is busy or blocked (inside a sync_wait on another pool, say) cannot strand it,
  // as it could in its own inbox (sleep.md "Submitting").
  // LIFETIME: after the push a worker may run the task, which may free `node`.
  void submit_any(submission* node) noexcept {
    // relaxed: as in submit_to().
    submitters_.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard lock(shared_mutex_);
      node->next = nullptr;
      (shared_tail_ != nullptr ? shared_tail_->next : shared_head_) = node;
      shared_tail_ = node;
      // relaxed: a hint for take_shared(); sleep() and wake_a_sleeper() order it with their fences.
      shared_pending_.fetch_add(1, std::memory_order_relaxed);
    }
    chaos_point();
    if (idle_ == idle_policy::sleep) wake_a_sleeper();
    // release: pairs with the acquire load in the destructor. LIFETIME: the last access to *this.
    submitters_.fetch_sub(1, std::memory_order_release);
  }

  // Hands a suspended task to worker `target` (explicit scheduling, paper III-D1).
  // LIFETIME: after the push the worker may run the task, which may free `node`.
  void submit_to(std::size_t target, submission* node) noexcept {
    // relaxed: the destructor sees this increment through what follows the push: the task runs, its root
    // completes and leaves the in-flight count, on which shutdown() waits.
    submitters_.fetch_add(1, std::memory_order_relaxed);
    worker_context& w = *workers_[target];
    chaos_point();
    (void)w.inbox.push(node);
    chaos_point();
    // Always notify: the event count's notify is a cheap RMW when nobody waits, and skipping it on a stale
    // "not sleeping" reading would lose the wake-up (PITFALLS, sleep.md).
    if (idle_ == idle_policy::sleep) w.sleep.notify_one();
    // release: pairs with the acquire load in the destructor. LIFETIME: the last access to *this.
    submitters_.fetch_sub(1, std::memory_order_release);
  }

  [[nodiscard]] std::vector<worker_stats> stats() const {
    std::vector<worker_stats> out;
    out.reserve(workers_.size());
    for (const auto& w : workers_) {
      const worker_counters& c = w->counters;
      // relaxed: statistics, read while workers may be updating them.
      out.push_back(
          {c.steal_attempts.load(std::memory_order_relaxed), c.steals.load(std::memory_order_relaxed),
           c.roots_run.load(std::memory_order_relaxed), c.exceptions_dropped.load(std::memory_order_relaxed),
           c.submissions_run.load(std::memory_order_relaxed), c.sleeps.load(std::memory_order_relaxed),
           c.nanoseconds_asleep.load(std::memory_order_relaxed),
           c.forks_run_as_calls.load(std::memory_order_relaxed)});
    }
    return out;
  }

 private:
  static std::vector<std::size_t> first_n(std::size_t n) {
    std::vector<std::size_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = i;
    return v;
  }

  // A worker for work that may go anywhere: round robin.
  [[nodiscard]] std::size_t any_worker() noexcept {
    // relaxed: only spreads work over the workers.
    return next_target_.fetch_add(1, std::memory_order_relaxed) % workers_.size();
  }

  // The oldest task in the shared queue, or null.
  submission* take_shared() {
    // relaxed: saves the lock when nothing is queued. A stale zero costs one round of the loop: a spinning
    // worker comes back, and a worker going to sleep re-checks after its fence (sleep.md "Submitting").
    if (shared_pending_.load(std::memory_order_relaxed) == 0) return nullptr;
    std::lock_guard lock(shared_mutex_);
    submission* const s = shared_head_;
    if (s == nullptr) return nullptr;
    shared_head_ = s->next;
    if (shared_head_ == nullptr) shared_tail_ = nullptr;
    // relaxed: the mutex orders the queue itself.
    shared_pending_.fetch_sub(1, std::memory_order_relaxed);
    return s;
  }

  // After a push on the shared queue: wakes one sleeping worker, if any (it need not be the one that takes
  // the task; a worker that is awake takes it before it sleeps).
  void wake_a_sleeper() noexcept {
    wake_one(any_worker(), [](const worker_context&) { return true; });
  }

  // Notifies the first worker, counting round from `first`, that `eligible` accepts and that is registered
  // in its event count, if there is one.
  template <class Eligible>
  void wake_one(std::size_t first, Eligible eligible) noexcept {
    // seq_cst fence: pairs with the fence in sleep() (store buffering): either that worker's re-check sees
    // what the caller published before this call (a push on the shared queue, active_/thieves_), or we see
    // its registration in its event count below.
    seq_cst_fence();
    std::size_t const n = workers_.size();
    for (std::size_t k = 0; k < n; ++k) {
      worker_context& w = *workers_[(first + k) % n];
      if (eligible(w) && w.sleep.waiters() != 0) {
        w.sleep.notify_one();
        return;
      }
    }
  }

  void stop_workers() noexcept {
    // release: pairs with the acquire loads in run() and sleep(): everything before the stop is visible to
    // exiting workers.
    stop_.store(true, std::memory_order_release);
    for (auto& w : workers_) w->sleep.notify_all();
    for (std::size_t i = 0; i < workers_.size(); ++i) threads_[i].join();
  }

  // ---- the lazy pool's accounting (sleep.md "The lazy pool's rule") ----
  // active_: workers running a task. thieves_[g]: awake workers of group g looking for work.

  void become_active(worker_context& w) noexcept {
    if (idle_ != idle_policy::sleep || !steal_) return;
    // seq_cst: these two, the loads in must_stay_awake() and the fences in wake_a_thief() and sleep() make
    // sure that a group's last thief either stays awake or is woken (sleep.md "The lazy pool's rule").
    bool const pool_was_idle = active_.fetch_add(1, std::memory_order_seq_cst) == 0;
    if (thieves_[w.group].fetch_sub(1, std::memory_order_seq_cst) == 1) wake_a_thief(w.group, &w);
    // Other groups may be all asleep: their last thief slept while nothing was active. Wake one in each.
    if (pool_was_idle) {
      for (std::size_t g = 0; g < groups_; ++g) {
        // seq_cst: as above.
        if (g != w.group && thieves_[g].load(std::memory_order_seq_cst) == 0) wake_a_thief(g, &w);
      }
    }
  }

  void become_thief(worker_context& w) noexcept {
    if (idle_ != idle_policy::sleep || !steal_) return;
    // seq_cst: as in become_active().
    thieves_[w.group].fetch_add(1, std::memory_order_seq_cst);
    active_.fetch_sub(1, std::memory_order_seq_cst);
  }

  // Group `group` has no awake thief while work is active: wake one of its sleeping workers (not `self`).
  void wake_a_thief(std::size_t group, const worker_context* self) noexcept {
    wake_one(0, [&](const worker_context& w) { return &w != self && w.group == group; });
  }

  // Work this worker could take now without sleeping.
  [[nodiscard]] bool work_visible(worker_context& w) const noexcept {
    if (!w.inbox.empty() || !w.owner.empty()) return true;
    // relaxed: ordered by the fences in sleep() and wake_a_sleeper().
    if (shared_pending_.load(std::memory_order_relaxed) != 0) return true;
    if (!steal_) return false;
    for (const auto& other : workers_) {
      if (!other->queue.thief().empty()) return true;
    }
    return false;
  }

  // The lazy rule: while any worker is active, the last awake thief of a group stays awake.
  [[nodiscard]] bool must_stay_awake(worker_context& w) const noexcept {
    if (!steal_) return false;
    // seq_cst: see become_active().
    return thieves_[w.group].load(std::memory_order_seq_cst) == 0 &&
           active_.load(std::memory_order_seq_cst) > 0;
  }

  void sleep(worker_context& w) {
    if (steal_) thieves_[w.group].fetch_sub(1, std::memory_order_seq_cst);  // seq_cst: see become_active()
    chaos_point();
    auto const key = w.sleep.prepare_wait();
    // seq_cst fence: pairs with the fences in wake_a_sleeper() and wake_a_thief() (store buffering): either
    // the re-check below sees their push or update, or they see this registration and notify us.
    seq_cst_fence();
    // Re-check after announcing ourselves (event count protocol): work or stop that arrived before the
    // announcement is seen here; anything later notifies us.
    // acquire: pairs with the release store in stop_workers().
    if (work_visible(w) || stop_.load(std::memory_order_acquire)) {
      w.sleep.cancel_wait();
    } else if (must_stay_awake(w)) {
      w.sleep.cancel_wait();
      // The group's last awake thief keeps looking, but lets others run: it may share a core with the active
      // worker that woke it (measured: without this a wake-up took 1.8 ms instead of 3 us on 2 cores).
      std::this_thread::yield();
    } else {
      worker_counters::bump(w.counters.sleeps);
      auto const t0 = std::chrono::steady_clock::now();
      w.sleep.wait(key);
      auto const slept = std::chrono::steady_clock::now() - t0;
      worker_counters::add(w.counters.nanoseconds_asleep,
                           static_cast<std::uint64_t>(std::chrono::nanoseconds(slept).count()));
    }
    if (steal_) thieves_[w.group].fetch_add(1, std::memory_order_seq_cst);  // seq_cst: see become_active()
  }

  void idle(worker_context& w, std::uint32_t round) {
    if (idle_ == idle_policy::sleep) {
      // A lazy worker keeps trying for a while before it sleeps: work often arrives within microseconds.
      if (steal_ && round < 256) {
        cpu_relax();
        return;
      }
      sleep(w);
      return;
    }
    if (round % 64 == 63) {
      std::this_thread::yield();  // oversubscribed pools: let the worker that has the work run
    } else {
      cpu_relax();
    }
  }

  // Runs a task handed over through the inbox: a root, or a task that moved itself here.
  void run_submission(worker_context& w, submission* s) {
    frame* task = s->task;  // LIFETIME: `s` may die once the task runs
    become_active(w);
    take_stack(task->home);
    worker_counters::bump(w.counters.submissions_run);
    run_from_scheduler(task->handle());
    become_thief(w);
  }

  [[nodiscard]] std::size_t pick_victim(worker_context& self) {
    if (pinned_victims()) return samplers_[self.index]();
    // xorshift64: uniform victims need speed, not quality.
    std::uint64_t x = self.rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    self.rng_state = x;
    std::size_t const n = workers_.size();
    std::size_t victim = static_cast<std::size_t>(x % (n - 1));
    return victim >= self.index ? victim + 1 : victim;
  }

  [[nodiscard]] bool pinned_victims() const noexcept { return pinned_ && !placement_.is_uniform(); }

  // A task that moved itself away with resume_on can leave continuations on its old worker's deque: those of
  // its strand's ancestors that were not stolen. The worker takes the newest one from the bottom, as if the
  // moved task had returned to it, and runs it as a steal (its steals count goes up: the moved task's return
  // comes through the join counter, join.md §6). Taking the oldest from the top instead would leave newer
  // continuations of the strand below the ones the resumed task pushes next, and a forked child finishing
  // there would pop one of them as its own parent's.
  // Their frames' home was written by resume_on (left_behind) or by an earlier steal, so no stack is passed.
  bool resume_left_behind(worker_context& self) {
    std::optional<std::coroutine_handle<>> const left = self.owner.pop();
    if (!left) return false;  // thieves took them meanwhile
    run_stolen(self, *left, nullptr);
    return true;
  }

  // Steals one continuation from another worker and runs it.
  bool try_steal(worker_context& self) {
    if (!steal_ || workers_.size() < 2) return false;
    worker_context& victim = *workers_[pick_victim(self)];
    worker_counters::bump(self.counters.steal_attempts);
    chaos_point();
    // The victim's stack, read where the deque makes it the stack of the continuation we claim.
    segmented_stack* victim_stack = nullptr;
    auto stolen = victim.queue.thief().steal([&]() noexcept { victim_stack = stack_of(victim); });
    if (!stolen) return false;
    run_stolen(self, stolen.value, victim_stack);
    return true;
  }

  // `victim_stack`: the stack the continuation's owner allocated on when it pushed it (null if unknown).
  void run_stolen(worker_context& self, std::coroutine_handle<> continuation, segmented_stack* victim_stack) {
    // This worker now runs the continuation; steals and home are owned by whoever runs it (frame.hpp). The
    // first steal since the frame's last join finds it on the stack its owner had (stack.md "Where a frame
    // lives"), unless resume_on wrote home already.
    frame* const f = frame_of(continuation);
    if (f->state.steals++ == 0 && !f->state.left_behind) {
      if (victim_stack == nullptr) internal_error("a continuation left in a deque without its home");
      f->home = victim_stack;
    }
    worker_counters::bump(self.counters.steals);
    become_active(self);
    run_from_scheduler(continuation);
    become_thief(self);
  }

  void pin(worker_context& w) noexcept {
    if (!pinned_) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(placement_.cpu(w.index), &set);
    // Best effort: a failure (restricted cpuset) leaves the worker unpinned.
    (void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  }

  void run(worker_context& w) {
    tls_worker = &w;
    tls_owner = w.owner;
    // Every stack this worker grows (its own, adopted ones, roots' and fresh ones after steals) is grown on
    // this thread, so the pool's budget applies to all of them.
    tls_stack_budget = stack_budget_;
    use_stack(&w, new segmented_stack());
    pin(w);
    std::uint32_t idle_rounds = 0;
    while (true) {
      // Continuations left on our own deque (a task moved away with resume_on) run before any submission: a
      // task taken from the inbox must start on an empty deque, or a forked child among them would pop one of
      // those continuations at its end as if it were its own parent's (join.md §6).
      if (!w.owner.empty()) {
        if (resume_left_behind(w)) idle_rounds = 0;
        continue;
      }
      if (submission* s = w.inbox.pop()) {
        run_submission(w, s);
        idle_rounds = 0;
        continue;
      }
      if (submission* s = take_shared()) {
        run_submission(w, s);
        idle_rounds = 0;
        continue;
      }
      if (try_steal(w)) {
        idle_rounds = 0;
        continue;
      }
      // acquire: pairs with the release store in stop_workers().
      if (stop_.load(std::memory_order_acquire)) break;
      idle(w, idle_rounds++);
    }
    if (!tls_stack->empty()) internal_error("a worker stopped with frames on its stack");
    delete tls_stack;
    delete w.spare;
    w.spare = nullptr;
    use_stack(&w, segmented_stack::no_worker());
    tls_owner = fj::deque_owner<std::coroutine_handle<>>::unbound();
    tls_worker = nullptr;
  }

  bool const steal_;
  idle_policy const idle_;
  std::size_t const stack_budget_;
  topology placement_ = topology::uniform(1);
  bool pinned_ = false;
  std::size_t groups_ = 1;
  std::string description_;
  std::vector<std::unique_ptr<worker_context>> workers_;
  std::vector<victim_sampler> samplers_;
  std::unique_ptr<os_thread[]> threads_;

  std::unique_ptr<std::atomic<std::int64_t>[]> thieves_;
  std::atomic<std::int64_t> active_{0};
  std::atomic<std::size_t> next_target_{0};
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> submitters_{0};  // threads inside submit_to/any(), which the destructor waits for
  // The shared queue (submit_any): FIFO under shared_mutex_; shared_pending_ counts its tasks.
  std::mutex shared_mutex_;
  submission* shared_head_ = nullptr;
  submission* shared_tail_ = nullptr;
  std::atomic<std::size_t> shared_pending_{0};
  inflight_counter inflight_;
  std::mutex shutdown_mutex_;
  bool stopped_ = false;
};

}  // namespace fj::detail
