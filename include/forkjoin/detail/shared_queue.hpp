#pragma once
// The pool's shared queue (submit_any): tasks that any worker may take, first in first out, under a mutex.
// Every worker looks here before it steals, so a task handed to the pool cannot be stranded behind a busy or
// blocked worker (docs/protocols/sleep.md "The lazy pool's rule", step 4). Rare (roots and resume_on), so a
// mutex is enough.

#include <atomic>
#include <cstddef>
#include <mutex>

#include "forkjoin/detail/submission.hpp"

namespace fj::detail {

class shared_queue {
 public:
  // Appends `node`. LIFETIME: once the lock is released a worker may take and run the task, which may free
  // `node`.
  void push(submission* node) noexcept {
    std::lock_guard lock(mutex_);
    node->next = nullptr;
    (tail_ != nullptr ? tail_->next : head_) = node;
    tail_ = node;
    // relaxed: a hint for take(); the pool's sleep() and wake_a_sleeper() order it with their fences.
    pending_.fetch_add(1, std::memory_order_relaxed);
  }

  // The oldest task, or null: also when another thread holds the lock. Idle workers all poll here (spinning,
  // lingering, or a busy pool's); when a task arrives, those that see it at once would otherwise queue on
  // the mutex, each sleeping in the kernel and each woken by the unlock before it, to find the queue empty.
  // A worker that finds the lock held comes back on its next round, and one about to sleep does not while
  // `pending_` is not zero (sleep.md "The lazy pool's rule", step 3), so nothing is stranded.
  [[nodiscard]] submission* take() noexcept {
    // relaxed: saves the lock when nothing is queued. A stale zero costs one round of the loop: a spinning
    // worker comes back, and a worker going to sleep re-checks after its fence (sleep.md "The lazy pool's
    // rule", step 4).
    if (pending_.load(std::memory_order_relaxed) == 0) return nullptr;
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return nullptr;
    submission* const s = head_;
    if (s == nullptr) return nullptr;
    head_ = s->next;
    if (head_ == nullptr) tail_ = nullptr;
    // relaxed: the mutex orders the queue itself.
    pending_.fetch_sub(1, std::memory_order_relaxed);
    return s;
  }

  // Takes `node` back out of the queue if no worker has taken it yet (then nobody ever will); false if one
  // has. Under the mutex, so exactly one of take() and remove() gets a node. The queue is short (roots and
  // moving tasks), and the node sought was usually pushed last.
  [[nodiscard]] bool remove(submission* node) noexcept {
    // relaxed: as in take(); a stale zero means a worker took the node, and its lock ordered that.
    if (pending_.load(std::memory_order_relaxed) == 0) return false;
    std::lock_guard lock(mutex_);
    submission* before = nullptr;
    for (submission* s = head_; s != nullptr; before = s, s = s->next) {
      if (s != node) continue;
      (before != nullptr ? before->next : head_) = s->next;
      if (tail_ == s) tail_ = before;
      // relaxed: the mutex orders the queue itself.
      pending_.fetch_sub(1, std::memory_order_relaxed);
      return true;
    }
    return false;
  }

  // Whether a task may be queued (a hint, see take()).
  [[nodiscard]] bool maybe_pending() const noexcept {
    // relaxed: ordered by the fences in the pool's sleep() and wake_a_sleeper().
    return pending_.load(std::memory_order_relaxed) != 0;
  }

 private:
  std::mutex mutex_;
  submission* head_ = nullptr;
  submission* tail_ = nullptr;
  std::atomic<std::size_t> pending_{0};  // tasks in the queue
};

}  // namespace fj::detail
