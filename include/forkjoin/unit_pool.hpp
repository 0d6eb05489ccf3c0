#pragma once
// fj::unit_pool: exactly one worker and no stealing, so every task runs in the serial program's order. The
// worker sleeps while there is nothing to do. Useful as a deterministic baseline and for debugging.

#include <cstddef>
#include <vector>

#include "forkjoin/detail/pool_core.hpp"
#include "forkjoin/pool_options.hpp"

namespace fj {

class unit_pool {
 public:
  // thread_stack_size as in pool_options (0: system default).
  explicit unit_pool(std::size_t thread_stack_size = 0)
      : core_({.options = {.workers = 1, .thread_stack_size = thread_stack_size},
               .steal = false,
               .sleep_when_idle = true}) {}

  // Waits for every task submitted with sync_wait to finish, then stops the worker.
  ~unit_pool() = default;

  unit_pool(const unit_pool&) = delete;
  unit_pool& operator=(const unit_pool&) = delete;

  [[nodiscard]] static constexpr std::size_t size() noexcept { return 1; }
  [[nodiscard]] std::vector<worker_stats> stats() const { return core_.stats(); }

  [[nodiscard]] detail::pool_core& core() noexcept { return core_; }

 private:
  detail::pool_core core_;
};

}  // namespace fj
