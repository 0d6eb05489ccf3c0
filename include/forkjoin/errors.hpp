#pragma once
// The typed errors forkjoin reports for misuse and bad configuration. User exceptions thrown by tasks
// travel unchanged to the parent's join (or to sync_wait); these are forkjoin's own.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace fj {

// Base of every error forkjoin itself raises.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A task was created (a task function called, fj::fork or fj::call evaluated) on a thread that is not a
// forkjoin worker. Tasks run only inside a pool; enter one with fj::sync_wait.
class not_in_worker_error : public error {
 public:
  not_in_worker_error()
      : error(
            "fj: a task was created outside a forkjoin worker; start it with fj::sync_wait(pool, fn, "
            "args...)") {}
};

// fj::sync_wait was called from one of the pool's own workers: it would block the worker that has to run the
// task and could deadlock. Inside a task use co_await fj::call(...) instead. Also thrown by a pool's
// shutdown() called from one of its own workers (the pool would wait for the task that is waiting for it).
class deadlock_error : public error {
 public:
  deadlock_error()
      : error(
            "fj: sync_wait of a task called from a worker of the same pool (this would deadlock); "
            "inside a task use co_await fj::call(...), and in a plain function spawn plain functions with "
            "fj::scope") {}
  // The same mistake made another way, e.g. a pool shut down or destroyed by one of its own workers.
  explicit deadlock_error(const std::string& what) : error(what) {}
};

// A pool was constructed with an invalid configuration (for example zero workers).
class invalid_config_error : public error {
 public:
  explicit invalid_config_error(const std::string& what) : error("fj: invalid pool configuration: " + what) {}
};

// A task's segmented stack would have grown beyond the pool's stack budget (pool_options::stack_budget): the
// recursion is deeper, or its frames larger, than the budget allows. Thrown by the frame allocation of the
// task being created, so it unwinds the recursion like any exception and reaches the join or sync_wait.
class stack_budget_error : public error {
 public:
  stack_budget_error(std::size_t budget, std::size_t request, std::size_t would_hold)
      : error("fj: stack budget of " + std::to_string(budget) + " bytes exceeded: a frame of " +
              std::to_string(request) + " bytes needed a new stacklet, which would make the stack hold " +
              std::to_string(would_hold) +
              " bytes (recursion too deep, or a frame too large); raise fj::pool_options::stack_budget, or "
              "set it to fj::unlimited_stack_budget"),
        budget_(budget),
        request_(request),
        would_hold_(would_hold) {}

  // The budget in force, in bytes of stacklet memory per stack.
  [[nodiscard]] std::size_t budget() const noexcept { return budget_; }
  // The size of the frame (or fj::scratch array) that could not be allocated.
  [[nodiscard]] std::size_t request() const noexcept { return request_; }
  // The stacklet memory the stack would have held with the new stacklet.
  [[nodiscard]] std::size_t would_hold() const noexcept { return would_hold_; }

 private:
  std::size_t budget_;
  std::size_t request_;
  std::size_t would_hold_;
};

// An operation that needs the calling task's fork-join scope closed was used after a fork whose continuation
// was stolen and before the join (children may still be running on the task's stack): fj::resume_on, or a
// co_return of a value, whose expression is evaluated before the implicit join (detail/task_return.hpp).
// co_await fj::join first.
class open_scope_error : public error {
 public:
  explicit open_scope_error(const std::string& operation)
      : error("fj: " + operation +
              " inside an open fork-join scope whose continuation was stolen: co_await fj::join first") {}
};

// An fj::scope used against its rules (docs/protocols/spawn.md "Where a scope may be used"): a spawn or sync
// from another thread than the one that opened it, from a child of the scope, or while a scope opened after
// it is still open.
class scope_error : public error {
 public:
  explicit scope_error(const std::string& what) : error("fj::scope: " + what) {}
};

// Work was submitted to a pool whose destructor has already started.
class pool_closed_error : public error {
 public:
  pool_closed_error() : error("fj: work submitted to a pool that is shutting down") {}
};

}  // namespace fj
