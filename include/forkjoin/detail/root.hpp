#pragma once
// The completion record of a root task started by sync_wait, and the pool's count of roots in flight.

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <vector>

#include "forkjoin/detail/submission.hpp"
#include "forkjoin/errors.hpp"

namespace fj::detail {

// Counts roots submitted to a pool and not yet finished, so that shutting the pool down can wait for them,
// and refuses new ones once the pool is closing.
class inflight_counter {
 public:
  // False once close_and_wait() has begun: the root must not be submitted.
  [[nodiscard]] bool try_add() {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    ++count_;
    return true;
  }
  // LIFETIME: the pool (and this counter) may be destroyed as soon as the lock is released with count_ == 0.
  void remove() noexcept {
    std::lock_guard lock(mutex_);
    if (--count_ == 0) drained_.notify_all();
  }
  // Refuses further roots, then waits until every accepted one has finished.
  void close_and_wait() {
    std::unique_lock lock(mutex_);
    closed_ = true;
    drained_.wait(lock, [&] { return count_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable drained_;
  std::size_t count_ = 0;
  bool closed_ = false;
};

struct root_base {
  std::exception_ptr exception;
  inflight_counter* inflight = nullptr;  // of the pool that runs the root
  submission node;                       // how the root reaches a worker's submission queue

  // A task of this root moves onto the pool counting with `pool` (co_await fj::resume_on). From then on
  // frames of this root may continue on that pool's workers (a parent continues wherever its child returns),
  // so the pool must not stop before the root has finished: it counts the root as in flight until then.
  // Throws fj::pool_closed_error if that pool is shutting down and the root does not already hold it open.
  // Tasks of one root may move concurrently, hence the lock; resume_on is rare enough for it.
  void hold_open(inflight_counter& pool) {
    std::lock_guard lock(mutex_);
    if (&pool == inflight) return;
    for (inflight_counter* held : visited_) {
      if (held == &pool) return;
    }
    if (!pool.try_add()) throw pool_closed_error();
    try {
      visited_.push_back(&pool);
    } catch (...) {
      pool.remove();
      throw;
    }
  }

  void wait() {
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return done_; });
  }
  // Called by the worker that finished the root. LIFETIME: the waiting thread may return from wait() and
  // destroy *this once the lock is released; nothing of *this is touched afterwards.
  void complete() noexcept {
    inflight_counter* counter = inflight;
    std::vector<inflight_counter*> visited;
    {
      std::lock_guard lock(mutex_);
      visited.swap(visited_);
      done_ = true;
      done_cv_.notify_one();
    }
    for (inflight_counter* held : visited) held->remove();
    counter->remove();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::vector<inflight_counter*> visited_;  // pools other than the root's own that it holds open
};

template <class T>
struct root_result : root_base {
  std::optional<T> value;
};

template <>
struct root_result<void> : root_base {};

}  // namespace fj::detail
