#pragma once
// The strict priority storage: one global priority queue under a lock. Every pop returns the most urgent
// value in the storage (relaxation 0). The baseline the k-relaxed storage (ext/relaxed_priority_storage.hpp)
// is measured against; the contract is ext/priority_storage.hpp's.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <queue>
#include <vector>

#include "forkjoin/ext/priority_storage.hpp"

namespace fj {

template <priority_value T>
class strict_priority_storage {
 public:
  using value_type = T;
  static constexpr std::size_t relaxation = 0;

  // workers: how many worker indices push and pop accept. Throws fj::invalid_config_error for 0.
  explicit strict_priority_storage(std::size_t workers) : workers_(workers) {
    if (workers == 0) {
      throw invalid_config_error("a priority storage needs at least one worker");
    }
  }

  strict_priority_storage(const strict_priority_storage&) = delete;
  strict_priority_storage& operator=(const strict_priority_storage&) = delete;
  strict_priority_storage(strict_priority_storage&&) = delete;
  strict_priority_storage& operator=(strict_priority_storage&&) = delete;
  ~strict_priority_storage() = default;

  // May throw std::bad_alloc (the queue grows), or fj::priority_error on bad input; then nothing is stored.
  void push(std::size_t worker, const T& value, double priority) {
    detail::check_worker(worker, workers_);
    detail::check_priority(priority);
    const std::lock_guard<std::mutex> lock(mutex_);
    queue_.push(entry{priority, next_sequence_++, value});
    // relaxed: a hint; the lock orders the queue itself.
    size_.store(queue_.size(), std::memory_order_relaxed);
  }

  // The most urgent value; among equal priorities, the one pushed first.
  [[nodiscard]] std::optional<T> pop(std::size_t worker) {
    detail::check_worker(worker, workers_);
    const std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.empty()) {
      return std::nullopt;
    }
    const T value = queue_.top().value;
    queue_.pop();
    // relaxed: as in push.
    size_.store(queue_.size(), std::memory_order_relaxed);
    return value;
  }

  [[nodiscard]] bool empty_hint() const noexcept {
    // relaxed: a hint, stale by the time it returns; nothing is read through it.
    return size_.load(std::memory_order_relaxed) == 0;
  }

  [[nodiscard]] std::size_t workers() const noexcept { return workers_; }

 private:
  struct entry {
    double priority;
    std::uint64_t sequence;
    T value;
  };
  // std::priority_queue keeps the largest on top: "larger" here means less urgent-first, so invert.
  struct later {
    bool operator()(const entry& a, const entry& b) const noexcept {
      return a.priority != b.priority ? a.priority > b.priority : a.sequence > b.sequence;
    }
  };

  std::size_t workers_;
  std::mutex mutex_;
  std::priority_queue<entry, std::vector<entry>, later> queue_;
  std::uint64_t next_sequence_ = 0;
  std::atomic<std::size_t> size_{0};
};

}  // namespace fj
