// root_base's blocking parts (include/forkjoin/detail/root.hpp): holding pools open for a root whose tasks
// moved, waiting for a root, and completing it. Compiled once here: none of it depends on the modes in
// detail/build_mode.hpp.

#include <atomic>
#include <mutex>
#include <vector>

#include "forkjoin/detail/inflight_counter.hpp"
#include "forkjoin/detail/root.hpp"
#include "forkjoin/errors.hpp"

namespace fj::detail {

void root_base::hold_open(inflight_counter& pool) {
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

void root_base::wait() {
  // acquire: pairs with the release store in complete(); the lock below orders the rest anyway.
  done_.wait(false, std::memory_order_acquire);
  // complete() stores and notifies under the lock: taking it once more makes sure complete() has released it,
  // its last access to *this, before the caller may destroy *this.
  std::lock_guard lock(mutex_);
}

void root_base::complete() noexcept {
  inflight_counter* counter = inflight;
  std::vector<inflight_counter*> visited;
  {
    std::lock_guard lock(mutex_);
    visited.swap(visited_);
    // release: pairs with the acquire wait in wait() and the acquire load in finished() (root.hpp): the
    // root's result and exception are visible there.
    done_.store(true, std::memory_order_release);
    done_.notify_one();
  }
  for (inflight_counter* held : visited) held->remove();
  counter->remove();
}

}  // namespace fj::detail
