#pragma once
// The hook through which a pool's workers run priority tasks (fj::priority_group, priority_group.hpp): a
// group attaches itself to its pool as a priority_source, and every worker of the pool, once its own deques,
// its inbox and the pool's shared queue are empty and before it steals, asks each attached source for a task
// (src/scheduler.cpp). Type-erased, so that the pool's code does not depend on the storage. Nothing on a
// fork's or a join's path reads it. The protocol is docs/protocols/priority.md §10.

#include <cstddef>

namespace fj::detail {

class priority_source {
 public:
  priority_source() = default;
  priority_source(const priority_source&) = delete;
  priority_source& operator=(const priority_source&) = delete;
  priority_source(priority_source&&) = delete;
  priority_source& operator=(priority_source&&) = delete;

  // A task that worker `worker` of the pool takes, or null. Never throws.
  [[nodiscard]] virtual void* take(std::size_t worker) noexcept = 0;
  // Runs a task take() returned, on the worker `worker` that took it; the task's exception goes to the group.
  virtual void run(void* task, std::size_t worker) noexcept = 0;
  // Worker `worker` has stopped taking tasks for now: what take() and run() kept back in the worker's own
  // counts goes to the group's shared counts (priority.md §10). Called after every run of takes.
  virtual void settle(std::size_t worker) noexcept = 0;

 protected:
  ~priority_source() = default;
};

}  // namespace fj::detail
