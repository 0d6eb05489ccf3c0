#pragma once
// The engine shared by forkjoin's pools: worker threads, their deques, root submission and the scheduler loop
// that steals continuations (paper III-D, busy variant). busy_pool and unit_pool configure it.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "forkjoin/detail/atomics.hpp"
#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/os_thread.hpp"
#include "forkjoin/detail/root.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/transfer.hpp"
#include "forkjoin/detail/transitions.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/pool_options.hpp"

namespace fj::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class pool_core {
 public:
  struct config {
    pool_options options;
    bool steal = true;             // false: a single worker, no thieves
    bool sleep_when_idle = false;  // true: wait on a condition variable for submissions instead of spinning
  };

  explicit pool_core(const config& cfg) : steal_(cfg.steal), sleep_when_idle_(cfg.sleep_when_idle) {
    if (cfg.options.workers == 0) throw invalid_config_error("a pool needs at least one worker (asked for 0)");
    // Decided once, before any worker exists, so that every worker sees the same fence mode (atomics.hpp).
    enable_asymmetric_fences();
    workers_.reserve(cfg.options.workers);
    for (std::size_t i = 0; i < cfg.options.workers; ++i) {
      workers_.push_back(std::make_unique<worker_context>(this, i));
      workers_.back()->rng_state = 0x9E3779B97F4A7C15ULL * (i + 1);
    }
    threads_ = std::make_unique<os_thread[]>(workers_.size());
    try {
      for (std::size_t i = 0; i < workers_.size(); ++i) {
        threads_[i].start([this, i] { run(*workers_[i]); }, cfg.options.thread_stack_size);
      }
    } catch (...) {
      stop_workers();
      throw;
    }
  }

  pool_core(const pool_core&) = delete;
  pool_core& operator=(const pool_core&) = delete;

  // Waits for every submitted root to finish, then stops the workers (the documented behaviour of destroying a
  // pool with work in flight). Submissions that arrive once this has begun get fj::pool_closed_error.
  ~pool_core() {
    if (is_own_worker()) broken_invariant("a pool was destroyed by one of its own workers");
    {
      std::lock_guard lock(submit_mutex_);
      closing_ = true;
    }
    inflight_.wait_until_drained();
    stop_workers();
  }

  [[nodiscard]] bool is_own_worker() const noexcept {
    worker_context* w = tls_worker;
    return w != nullptr && w->pool == this;
  }

  [[nodiscard]] std::size_t size() const noexcept { return workers_.size(); }

  // Hands a root frame (kind root, its own stack as home) to some worker.
  void submit(frame* root_frame) {
    {
      std::lock_guard lock(submit_mutex_);
      if (closing_) throw pool_closed_error();
      inflight_.add();
      submitted_.push_back(root_frame);
      // relaxed: only a hint for the polling loop; the mutex orders the queue itself.
      submitted_count_.store(submitted_.size(), std::memory_order_relaxed);
    }
    if (sleep_when_idle_) idle_cv_.notify_one();
  }

  [[nodiscard]] inflight_counter& inflight() noexcept { return inflight_; }

  [[nodiscard]] std::vector<worker_stats> stats() const {
    std::vector<worker_stats> out;
    out.reserve(workers_.size());
    for (const auto& w : workers_) {
      // relaxed: statistics, read while workers may be updating them.
      out.push_back({w->counters.steal_attempts.load(std::memory_order_relaxed),
                     w->counters.steals.load(std::memory_order_relaxed),
                     w->counters.roots_run.load(std::memory_order_relaxed),
                     w->counters.exceptions_dropped.load(std::memory_order_relaxed)});
    }
    return out;
  }

 private:
  void stop_workers() noexcept {
    {
      std::lock_guard lock(submit_mutex_);
      // release: pairs with the acquire load in run(); everything before the stop is visible to exiting workers.
      stop_.store(true, std::memory_order_release);
    }
    idle_cv_.notify_all();
    for (std::size_t i = 0; i < workers_.size(); ++i) threads_[i].join();
  }

  frame* try_take_root() {
    // relaxed: a hint; a stale zero only delays pickup to the next round.
    if (submitted_count_.load(std::memory_order_relaxed) == 0) return nullptr;
    std::lock_guard lock(submit_mutex_);
    if (submitted_.empty()) return nullptr;
    frame* r = submitted_.front();
    submitted_.pop_front();
    submitted_count_.store(submitted_.size(), std::memory_order_relaxed);
    return r;
  }

  bool try_steal(worker_context& self) {
    std::size_t const n = workers_.size();
    if (n < 2) return false;
    // xorshift64: victim choice needs speed, not quality.
    std::uint64_t x = self.rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    self.rng_state = x;
    std::size_t victim = static_cast<std::size_t>(x % (n - 1));
    if (victim >= self.index) ++victim;
    worker_counters::bump(self.counters.steal_attempts);
    auto stolen = workers_[victim]->queue.thief().steal();
    if (!stolen) return false;
    frame* f = stolen.value;
    // The thief now runs the continuation; steals is owned by whoever runs it (frame.hpp).
    ++f->steals;
    worker_counters::bump(self.counters.steals);
    run_from_scheduler(f->handle());
    return true;
  }

  void idle(std::uint32_t round) {
    if (sleep_when_idle_) {
      std::unique_lock lock(submit_mutex_);
      // relaxed loads under the mutex: stop_ and the queue are both written under it.
      idle_cv_.wait(lock, [&] { return !submitted_.empty() || stop_.load(std::memory_order_relaxed); });
      return;
    }
    if (round % 64 == 63) {
      std::this_thread::yield();  // oversubscribed pools: let the worker that has the work run
    } else {
      cpu_relax();
    }
  }

  void run(worker_context& w) {
    tls_worker = &w;
    tls_stack = new segmented_stack();
    std::uint32_t idle_rounds = 0;
    while (true) {
      if (frame* r = try_take_root()) {
        take_stack(r->home);
        run_from_scheduler(r->handle());
        idle_rounds = 0;
        continue;
      }
      if (steal_ && try_steal(w)) {
        idle_rounds = 0;
        continue;
      }
      // acquire: pairs with the release store in stop_workers().
      if (stop_.load(std::memory_order_acquire)) break;
      idle(idle_rounds++);
    }
    if (!tls_stack->empty()) broken_invariant("a worker stopped with frames on its stack");
    delete tls_stack;
    delete w.spare;
    w.spare = nullptr;
    tls_stack = nullptr;
    tls_worker = nullptr;
  }

  bool const steal_;
  bool const sleep_when_idle_;
  std::vector<std::unique_ptr<worker_context>> workers_;
  std::unique_ptr<os_thread[]> threads_;

  std::mutex submit_mutex_;
  std::condition_variable idle_cv_;
  std::deque<frame*> submitted_;
  std::atomic<std::size_t> submitted_count_{0};
  bool closing_ = false;
  std::atomic<bool> stop_{false};
  inflight_counter inflight_;
};

}  // namespace fj::detail
