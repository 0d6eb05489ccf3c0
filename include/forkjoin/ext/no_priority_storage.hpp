#pragma once
// The "no priority" storage: a deque per worker, priorities ignored. A worker pops its own newest value first
// and, when it has none, takes the oldest value of another worker (the work-stealing order of the pool's own
// deques). The baseline that shows what ordering by priority buys (docs/performance.md "Search workloads");
// the contract is ext/priority_storage.hpp's, with relaxation = the largest size_t (no ordering promise).
// Each deque is under its own lock: simpler than the pool's lock-free deque (ext/deque.hpp), whose owner
// handle is bound to one thread, which a storage index used by several threads in turn cannot promise.

#include <atomic>
#include <cstddef>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>

#include "forkjoin/ext/priority_storage.hpp"

namespace fj {

template <priority_value T>
class no_priority_storage {
 public:
  using value_type = T;
  static constexpr std::size_t relaxation = std::numeric_limits<std::size_t>::max();

  // workers: how many worker indices push and pop accept. Throws fj::invalid_config_error for 0.
  explicit no_priority_storage(std::size_t workers) : workers_(workers) {
    if (workers == 0) {
      throw invalid_config_error("a priority storage needs at least one worker");
    }
    lanes_ = std::make_unique<lane[]>(workers);
  }

  no_priority_storage(const no_priority_storage&) = delete;
  no_priority_storage& operator=(const no_priority_storage&) = delete;
  no_priority_storage(no_priority_storage&&) = delete;
  no_priority_storage& operator=(no_priority_storage&&) = delete;
  ~no_priority_storage() = default;

  // The priority is checked (NaN is rejected, as by every storage) and then ignored. May throw
  // std::bad_alloc or fj::priority_error; then nothing is stored.
  void push(std::size_t worker, const T& value, double priority) {
    detail::check_worker(worker, workers_);
    detail::check_priority(priority);
    lane& mine = lanes_[worker];
    const std::lock_guard<std::mutex> lock(mine.mutex);
    mine.values.push_back(value);
    // relaxed: a hint for empty_hint() and for skipping empty lanes; the lock orders the deque itself.
    mine.size.store(mine.values.size(), std::memory_order_relaxed);
  }

  // The newest value of `worker`'s own deque, else the oldest of the first other non-empty deque.
  [[nodiscard]] std::optional<T> pop(std::size_t worker) {
    detail::check_worker(worker, workers_);
    for (std::size_t i = 0; i < workers_; ++i) {
      lane& l = lanes_[(worker + i) % workers_];
      // relaxed: a hint; a stale zero only skips a lane this time round (the caller polls again).
      if (l.size.load(std::memory_order_relaxed) == 0) {
        continue;
      }
      const std::lock_guard<std::mutex> lock(l.mutex);
      if (l.values.empty()) {
        continue;
      }
      T value{};
      if (i == 0) {
        value = l.values.back();
        l.values.pop_back();
      } else {
        value = l.values.front();
        l.values.pop_front();
      }
      // relaxed: as in push.
      l.size.store(l.values.size(), std::memory_order_relaxed);
      return value;
    }
    return std::nullopt;
  }

  [[nodiscard]] bool empty_hint() const noexcept {
    for (std::size_t w = 0; w < workers_; ++w) {
      // relaxed: a hint, stale by the time it returns.
      if (lanes_[w].size.load(std::memory_order_relaxed) != 0) {
        return false;
      }
    }
    return true;
  }

  [[nodiscard]] std::size_t workers() const noexcept { return workers_; }

 private:
  struct alignas(128) lane {
    std::mutex mutex;
    std::deque<T> values;
    std::atomic<std::size_t> size{0};
  };

  std::size_t workers_;
  std::unique_ptr<lane[]> lanes_;
};

}  // namespace fj
