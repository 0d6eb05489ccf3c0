#pragma once
// The completion record of a root task started by sync_wait. The blocking parts (waiting for the root, the
// pools it holds open) are compiled into the library (src/root.cpp), with the pool's count of roots in flight
// (detail/inflight_counter.hpp), so that this header, which every user includes, needs no
// <condition_variable>.

#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <vector>

#include "forkjoin/detail/submission.hpp"

namespace fj::detail {

class inflight_counter;

struct root_base {
  std::exception_ptr exception;
  inflight_counter* inflight = nullptr;  // of the pool that runs the root
  submission node;                       // how the root reaches a worker's submission queue

  // A task of this root moves onto the pool counting with `pool` (co_await fj::resume_on). From then on
  // frames of this root may continue on that pool's workers (a parent continues wherever its child returns),
  // so the pool must not stop before the root has finished: it counts the root as in flight until then.
  // Throws fj::pool_closed_error if that pool is shutting down and the root does not already hold it open.
  // Tasks of one root may move concurrently, hence the lock; resume_on is rare enough for it.
  void hold_open(inflight_counter& pool);

  // Blocks the calling thread until complete() has run and returned its hold on *this.
  void wait();

  // Whether complete() has stored its result: a caller that expects the root to end within microseconds
  // polls this for a bounded time before it blocks in wait() (loop.hpp, finish_shared). wait() must still
  // follow, for the lock hand-over that ends complete()'s use of *this.
  [[nodiscard]] bool finished() const noexcept {
    // acquire: pairs with the release store in complete(), as wait()'s load does.
    return done_.load(std::memory_order_acquire);
  }

  // Called by the worker that finished the root. LIFETIME: the waiting thread may return from wait() and
  // destroy *this once the lock is released; nothing of *this is touched afterwards.
  void complete() noexcept;

 private:
  std::mutex mutex_;
  // Written once, true, by complete() under mutex_; wait() sleeps on it (std::atomic::wait).
  std::atomic<bool> done_{false};
  std::vector<inflight_counter*> visited_;  // pools other than the root's own that it holds open
};

template <class T>
struct root_result : root_base {
  std::optional<T> value;
};

template <>
struct root_result<void> : root_base {};

}  // namespace fj::detail
