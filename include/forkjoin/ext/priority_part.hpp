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
// the priority tasks before it stops the workers; spawning after shutdown() is a misuse (the task never runs,
// and the pool's destructor waits for it for ever). A pool without this part refuses pool.spawn(priority,
// ...) at compile time. More groups may still be attached to the pool (up to pool_core::k_priority_sources,
// this one included).

#include <cstddef>
#include <thread>
#include <utility>

#include "forkjoin/basic_pool.hpp"
#include "forkjoin/detail/pool_base.hpp"
#include "forkjoin/ext/relaxed_priority_storage.hpp"
#include "forkjoin/ext/strict_priority_storage.hpp"
#include "forkjoin/priority_group.hpp"

namespace fj {

template <class Storage>
class with_priority : public detail::priority_part_tag {
 public:
  using storage_type = Storage;

  // Queues fn(args...) with `priority` (lower = more urgent): priority_group::spawn.
  template <class F, class... Args>
  void spawn(double priority, F&& fn, Args&&... args) {
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
  void finish_priority_tasks() noexcept {
    while (group_.pending() != 0) {
      std::this_thread::yield();
    }
  }

 private:
  priority_group<Storage> group_;
};

// The ready-made storages as parts (docs/api.md "Priority groups" says which to choose).
template <std::size_t K>
using with_relaxed_priority = with_priority<relaxed_priority_storage<priority_task*, K>>;
using with_strict_priority = with_priority<strict_priority_storage<priority_task*>>;

}  // namespace fj
