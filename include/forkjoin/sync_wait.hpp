#pragma once
// fj::sync_wait(pool, fn, args...): run fn(args...) as a root task on `pool` from ordinary code, block until
// it finishes, and return its result or rethrow its exception. Any number of threads may call it on one pool
// at once. fn is a task (returns fj::task<T>) or a plain function (which may spawn with fj::scope). A task
// started from a worker of the same pool throws fj::deadlock_error; a plain function called there simply
// runs. Without a pool: fj::default_pool().

#include <concepts>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include "forkjoin/default_pool.hpp"
#include "forkjoin/detail/arguments.hpp"
#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/pool_core.hpp"
#include "forkjoin/detail/root.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/task.hpp"

namespace fj {

// A pool that sync_wait can run tasks on.
template <class P>
concept scheduler = requires(P& p) {
  { p.core() } -> std::same_as<detail::pool_core&>;
};

namespace detail {

// Points tls_stack at a root's own stack while its frame is created, then restores it (the calling thread may
// be a worker of another pool).
class stack_scope {
 public:
  explicit stack_scope(segmented_stack* s) noexcept : saved_(std::exchange(tls_stack, s)) {}
  ~stack_scope() { tls_stack = saved_; }
  stack_scope(const stack_scope&) = delete;
  stack_scope& operator=(const stack_scope&) = delete;

 private:
  segmented_stack* saved_;
};

}  // namespace detail

namespace detail {

// A root task handed to a pool and not yet waited for: sync_wait starts one and waits at once; an fj::scope
// opened on an ordinary thread starts one per spawned child and waits for them at its sync.
template <class T>
class started_root {
 public:
  started_root() = default;
  started_root(const started_root&) = delete;
  started_root& operator=(const started_root&) = delete;
  ~started_root() = default;

  // Creates fn(args...)'s frame on a stack of its own and submits it. Throws what creating the frame
  // throws, or fj::pool_closed_error; then nothing was submitted.
  template <class F, class... Args>
  void start(pool_core& core, F&& fn, Args&&... args) {
    // Each root brings its own stack; the worker that runs it adopts it (stack.md).
    auto stack = std::make_unique<segmented_stack>();
    promise<T>* root = nullptr;
    {
      // The root frame is made here, on the calling thread: under the pool's budget, as on its workers.
      stack_scope scope(stack.get());
      stack_budget_scope budget(core.stack_budget());
      root = &std::invoke(std::forward<F>(fn), std::forward<Args>(args)...).release().promise();
    }
    root->state.kind = task_kind::root;
    root->root = &result_;
    root->home = stack.get();  // the worker that starts the root adopts it from here (stack.md rule 6)
    // A root's result goes to `result_` (return_value): whatever tls_next_out held, its out pointer is null.
    if constexpr (!std::is_void_v<T>) root->set_out(nullptr);
    try {
      core.submit_root(result_, root);
    } catch (...) {
      stack_scope scope(stack.get());
      root->handle().destroy();
      throw;
    }
    task_ = root;
    stack_ = stack.release();  // now owned by the worker that runs the root (or by withdraw())
  }

  // Takes the root back if no worker has taken it yet (pool_core::withdraw_root) and destroys it, with its
  // stack, here; then wait() must not be called. False if a worker has it: wait() as usual.
  [[nodiscard]] bool withdraw(pool_core& core) noexcept {
    if (!core.withdraw_root(result_)) return false;
    {
      stack_scope scope(stack_);
      task_->handle().destroy();
    }
    delete stack_;
    return true;
  }

  // Whether the root has finished (root_base::finished); wait() must still follow.
  [[nodiscard]] bool finished() const noexcept { return result_.finished(); }

  // Blocks until the root has finished; returns its result or rethrows its exception.
  T wait() {
    result_.wait();
    if (result_.exception) std::rethrow_exception(result_.exception);
    if constexpr (!std::is_void_v<T>) return std::move(*result_.value);
  }

 private:
  root_result<T> result_;
  promise<T>* task_ = nullptr;        // the root's frame, until a worker takes it
  segmented_stack* stack_ = nullptr;  // its stack, likewise
};

template <class T, class F, class... Args>
T run_root(pool_core& core, F&& fn, Args&&... args) {
  if (core.is_own_worker()) throw deadlock_error();
  started_root<T> root;
  root.start(core, std::forward<F>(fn), std::forward<Args>(args)...);
  return root.wait();
}

// What a plain function returns through sync_wait: its result by value.
template <class F, class... Args>
using plain_result_t = std::remove_cvref_t<std::invoke_result_t<F, Args...>>;

// The root task that runs a plain function (sync_wait(pool, fn, args...) with fn not a task). Its parameters
// are references to sync_wait's own, which live until sync_wait returns, after the task.
template <class R, class F, class... Args>
task<R> plain_root(F&& fn, Args&&... args) {  // NOLINT(cppcoreguidelines-rvalue-reference-param-not-moved)
  // (F and Args are the reference types sync_wait deduced; std::forward passes each on as it came.)
  if constexpr (std::is_void_v<R>) {
    std::invoke(std::forward<F>(fn), std::forward<Args>(args)...);
    co_return;
  } else {
    co_return std::invoke(std::forward<F>(fn), std::forward<Args>(args)...);
  }
}

template <class F, class... Args>
decltype(auto) run_plain(pool_core& core, F&& fn, Args&&... args) {
  using R = plain_result_t<F, Args...>;
  // On a worker of this pool the call simply runs here: the scopes it opens spawn onto this worker.
  if (core.is_own_worker())
    return static_cast<R>(std::invoke(std::forward<F>(fn), std::forward<Args>(args)...));
  return run_root<R>(core, plain_root<R, F&&, Args&&...>, std::forward<F>(fn), std::forward<Args>(args)...);
}

// What a sync_wait whose static_assert failed returns: it converts to anything (declared only, it is never
// called), so that the caller's use of the result adds no error after the assertion's.
struct rejected_root_result {
  template <class T>
  operator T() const noexcept;
};

// Instantiated only for a nonzero Argument: the failed `Argument == 0` shows the compiler's reader which one.
template <std::size_t Argument>
constexpr void reject_converted_root_argument() {
  static_assert(
      Argument == 0,
      "fj::sync_wait: argument N (N is the number in the failed `N == 0`; 1 is the first after fn) must be "
      "converted to bind a reference parameter of fn, and the temporary that conversion makes inside "
      "fj::sync_wait dies before the task starts: convert it yourself (e.g. std::string(\"...\")) or take "
      "the "
      "parameter by value");
}

}  // namespace detail

template <scheduler Pool, class F, class... Args>
decltype(auto) sync_wait(Pool& pool, F&& fn, Args&&... args) {
  if constexpr (!std::is_invocable_v<F, Args...>) {
    static_assert(
        std::is_invocable_v<F, Args...>,
        "fj::sync_wait(pool, fn, args...): fn(args...) must be callable (a task returning fj::task<T>, "
        "or a plain function)");
    return detail::rejected_root_result{};
  } else if constexpr (!task_invocable<F, Args...>) {
    // A plain function: its arguments are passed by reference to the call, so no conversion's temporary dies
    // early.
    return detail::run_plain(pool.core(), std::forward<F>(fn), std::forward<Args>(args)...);
  } else if constexpr (constexpr std::size_t converted = detail::converted_argument<F, Args...>();
                       converted != 0) {
    // The caller's own temporaries live until sync_wait returns, after the task; a conversion's temporary is
    // made inside run_root's call of fn and dies at once (detail/arguments.hpp).
    detail::reject_converted_root_argument<converted>();
    return detail::rejected_root_result{};
  } else {
    return detail::run_root<task_result_t<F, Args...>>(pool.core(), std::forward<F>(fn),
                                                       std::forward<Args>(args)...);
  }
}

// The same on fj::default_pool().
template <class F, class... Args>
  requires(!scheduler<std::remove_cvref_t<F>>)
decltype(auto) sync_wait(F&& fn, Args&&... args) {
  return fj::sync_wait(default_pool(), std::forward<F>(fn), std::forward<Args>(args)...);
}

}  // namespace fj
