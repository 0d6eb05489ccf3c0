#pragma once
// The completion record of a root task started by sync_wait, and the pool's count of roots in flight.

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>

#include "forkjoin/detail/submission.hpp"

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
  inflight_counter* inflight = nullptr;
  submission node;  // how the root reaches a worker's submission queue

  void wait() {
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return done_; });
  }
  // Called by the worker that finished the root. LIFETIME: the waiting thread may return from wait() and
  // destroy *this once the lock is released; nothing of *this is touched afterwards.
  void complete() noexcept {
    inflight_counter* counter = inflight;
    {
      std::lock_guard lock(mutex_);
      done_ = true;
      done_cv_.notify_one();
    }
    counter->remove();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
};

template <class T>
struct root_result : root_base {
  std::optional<T> value;
};

template <>
struct root_result<void> : root_base {};

}  // namespace fj::detail
