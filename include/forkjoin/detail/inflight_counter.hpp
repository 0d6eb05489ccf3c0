#pragma once
// A pool's count of roots in flight: roots submitted to it (or holding it open after a resume_on) and not yet
// finished, so that shutting the pool down can wait for them, and that refuses new ones once the pool is
// closing. Used by the library (src/pool_core.cpp, src/root.cpp) only; users see it as a declared type.

#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace fj::detail {

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

}  // namespace fj::detail
