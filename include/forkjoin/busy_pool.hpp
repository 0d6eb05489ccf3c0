#pragma once
// fj::busy_pool: N workers that never sleep; an idle worker keeps stealing from random victims. Lowest latency,
// one full core per worker even when there is no work (paper III-D, "busy scheduler").

#include <cstddef>
#include <vector>

#include "forkjoin/detail/pool_core.hpp"
#include "forkjoin/pool_options.hpp"

namespace fj {

class busy_pool {
 public:
  // One worker per hardware thread.
  busy_pool() : busy_pool(pool_options{}) {}
  // Throws fj::invalid_config_error for 0 workers.
  explicit busy_pool(std::size_t workers) : busy_pool(pool_options{.workers = workers}) {}
  explicit busy_pool(const pool_options& options) : core_({.options = options, .steal = true}) {}

  // Waits for every task submitted with sync_wait to finish, then stops the workers.
  ~busy_pool() = default;

  busy_pool(const busy_pool&) = delete;
  busy_pool& operator=(const busy_pool&) = delete;

  [[nodiscard]] std::size_t size() const noexcept { return core_.size(); }
  [[nodiscard]] std::vector<worker_stats> stats() const { return core_.stats(); }

  // For sync_wait and scheduler extensions.
  [[nodiscard]] detail::pool_core& core() noexcept { return core_; }

 private:
  detail::pool_core core_;
};

}  // namespace fj
