#pragma once
// The typed errors forkjoin reports for misuse and bad configuration. User exceptions thrown by tasks
// travel unchanged to the parent's join (or to sync_wait); these are forkjoin's own.

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
// task and could deadlock. Inside a task use co_await fj::call(...) instead.
class deadlock_error : public error {
 public:
  deadlock_error()
      : error(
            "fj: sync_wait called from a worker of the same pool (this would deadlock); "
            "inside a task use co_await fj::call(...)") {}
};

// A pool was constructed with an invalid configuration (for example zero workers).
class invalid_config_error : public error {
 public:
  explicit invalid_config_error(const std::string& what) : error("fj: invalid pool configuration: " + what) {}
};

// Work was submitted to a pool whose destructor has already started.
class pool_closed_error : public error {
 public:
  pool_closed_error() : error("fj: work submitted to a pool that is shutting down") {}
};

}  // namespace fj
