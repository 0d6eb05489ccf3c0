#pragma once
// What every forkjoin pool offers, whatever its policy: shutdown, size, statistics, a description, and the
// core that sync_wait and resume_on use. fj::basic_pool (basic_pool.hpp) turns its parts into the core's
// configuration; busy_pool, lazy_pool and unit_pool name configurations of it.

#include <cstddef>
#include <string>
#include <vector>

#include "forkjoin/detail/pool_core.hpp"
#include "forkjoin/pool_options.hpp"

namespace fj::detail {

class pool_base {
 public:
  pool_base(const pool_base&) = delete;
  pool_base& operator=(const pool_base&) = delete;

  // Refuses new work (sync_wait then throws fj::pool_closed_error), waits for every task already submitted
  // with sync_wait to finish, and stops the workers. The destructor does the same. A pool with parts that
  // hold tasks of their own (basic_pool's priority part) first waits for those, also when shut down through
  // a reference to this base.
  void shutdown() {
    if (before_shutdown_ != nullptr && !core_.is_own_worker()) before_shutdown_(*this);
    core_.shutdown();
  }

  [[nodiscard]] std::size_t size() const noexcept { return core_.size(); }
  [[nodiscard]] std::vector<worker_stats> stats() const { return core_.stats(); }
  // Workers asleep right now (lazy and unit pools; a snapshot).
  [[nodiscard]] std::size_t sleeping() const noexcept { return core_.sleeping(); }
  // Kind, worker count, pinning and the topology used for victim selection.
  [[nodiscard]] const std::string& description() const noexcept { return core_.description(); }

  // For sync_wait, resume_on and scheduler extensions.
  [[nodiscard]] pool_core& core() noexcept { return core_; }
  [[nodiscard]] const pool_core& core() const noexcept { return core_; }

 protected:
  explicit pool_base(const pool_core::config& cfg) : core_(cfg) {}
  ~pool_base() = default;

  // What shutdown() runs first, on a thread outside the pool: the derived pool's own wait.
  using shutdown_hook = void (*)(pool_base&) noexcept;
  void set_shutdown_hook(shutdown_hook hook) noexcept { before_shutdown_ = hook; }

 private:
  pool_core core_;
  shutdown_hook before_shutdown_ = nullptr;
};

}  // namespace fj::detail
