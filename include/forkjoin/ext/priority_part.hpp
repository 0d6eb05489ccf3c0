#pragma once
// fj::with_priority<Storage>: the priority part of an fj::basic_pool (basic_pool.hpp). The pool owns one
// fj::priority_group<Storage> (priority_group.hpp, docs/protocols/priority.md §10) and offers its spawn and
// wait as its own:
//
//   fj::basic_pool<fj::sleep_idle, fj::default_victims, fj::with_relaxed_priority<16>> pool(2);
//   pool.spawn(0.0, relax, &graph, source);   // lower = more urgent; from any thread, and from the tasks
//   pool.wait_for_priority_tasks();           // every task, and every task they spawned, has finished
//
// Everything priority_group.hpp says about spawn, wait, exceptions, coroutines and idle workers holds here.
// The group is made after the pool's workers start and destroyed before they stop (it is a base class that
// comes after the pool's core), so the group-before-pool rule keeps itself. basic_pool::shutdown() waits for
// the priority tasks before it stops the workers; spawn after shutdown() throws fj::pool_closed_error (a
// spawn racing with shutdown() from another thread is a misuse: its task may never run). A pool without this
// part refuses pool.spawn(priority,
// ...) at compile time. More groups may still be attached to the pool (up to pool_core::k_priority_sources,
// this one included).

#include <atomic>
#include <cstddef>
#include <thread>
#include <utility>

#include "forkjoin/basic_pool.hpp"
#include "forkjoin/detail/pool_base.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/ext/relaxed_priority_storage.hpp"
#include "forkjoin/ext/strict_priority_storage.hpp"
#include "forkjoin/priority_group.hpp"

namespace fj {

template <class Storage>
class with_priority : public detail::priority_part_tag {
 public:
  using storage_type = Storage;

  // Queues fn(args...) with `priority` (lower = more urgent): priority_group::spawn.
  // Throws fj::pool_closed_error once shutdown() has begun to stop the workers.
  template <class F, class... Args>
  void spawn(double priority, F&& fn, Args&&... args) {
    // acquire: pairs with the release store in finish_priority_tasks(), so that a spawn after shutdown()
    // returned, on any thread that saw it return, sees the pool closed.
    if (closed_.load(std::memory_order_acquire)) throw pool_closed_error();
    group_.spawn(priority, std::forward<F>(fn), std::forward<Args>(args)...);
  }

  // Waits for every priority task spawned so far and those they spawned; rethrows the first exception:
  // priority_group::wait.
  void wait_for_priority_tasks() { group_.wait(); }

  // The group itself (pending(), storage()).
  [[nodiscard]] priority_group<Storage>& priority_tasks() noexcept { return group_; }

 protected:
  explicit with_priority(detail::pool_base& pool) : group_(pool) {}
  ~with_priority() = default;

  // basic_pool::shutdown(): the workers must outlive the tasks. The exception, if any, stays for the next
  // wait_for_priority_tasks() (or is counted as dropped by the group's destructor).
  // Once nothing is pending, no task runs that could spawn, so the pool closes to spawns from outside; a
  // spawn from outside that got in before the close is waited for too.
  void finish_priority_tasks() noexcept {
    while (group_.pending() != 0) {
      std::this_thread::yield();
    }
    // release: pairs with the acquire load in spawn().
    closed_.store(true, std::memory_order_release);
    while (group_.pending() != 0) {
      std::this_thread::yield();
    }
  }

 private:
  priority_group<Storage> group_;
  std::atomic<bool> closed_{false};
};

// The ready-made storages as parts (docs/api.md "Priority groups" says which to choose).
template <std::size_t K>
using with_relaxed_priority = with_priority<relaxed_priority_storage<priority_task, K>>;
using with_strict_priority = with_priority<strict_priority_storage<priority_task>>;

}  // namespace fj
