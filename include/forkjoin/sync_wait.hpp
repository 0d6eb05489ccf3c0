#pragma once
// fj::sync_wait(pool, fn, args...): run fn(args...) as a root task on `pool` from ordinary code, block until
// it finishes, and return its result or rethrow its exception. Any number of threads may call it on one pool
// at once. Calling it from a worker of the same pool throws fj::deadlock_error.

#include <concepts>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <utility>

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

template <class T, class F, class... Args>
T run_root(pool_core& core, F&& fn, Args&&... args) {
  if (core.is_own_worker()) throw deadlock_error();
  root_result<T> result;
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
  root->root = &result;
  root->home = stack.get();  // the worker that starts the root adopts it from here (stack.md rule 6)
  // A root's result goes to `result` (return_value): whatever tls_next_out held, its out pointer is null.
  if constexpr (!std::is_void_v<T>) root->set_out(nullptr);
  try {
    core.submit_root(result, root);
  } catch (...) {
    stack_scope scope(stack.get());
    root->handle().destroy();
    throw;
  }
  (void)stack.release();  // now owned by the worker that runs the root
  result.wait();
  if (result.exception) std::rethrow_exception(result.exception);
  if constexpr (!std::is_void_v<T>) return std::move(*result.value);
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
  if constexpr (!task_invocable<F, Args...>) {
    static_assert(task_invocable<F, Args...>,
                  "fj::sync_wait(pool, fn, args...): fn(args...) must be callable and return fj::task<T>");
    return detail::rejected_root_result{};
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

}  // namespace fj
