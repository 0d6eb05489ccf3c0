#pragma once
// A task's return (paper Algorithm 5; docs/protocols/join.md §3 "The return" and §4): what its final suspend
// does. The fast path frees the frame and resumes the parent (a call) or pops it back from the deque (a
// fork). Everything else is out of line: a fork whose parent was stolen returns through the join counter
// (join.hpp); a frame stolen since its last join joins implicitly before it finishes; `finish` destroys a
// frame, passes its exception up and continues its parent or completes its root.

#include <coroutine>
#include <cstdint>
#include <exception>
#include <utility>

#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/root.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/slow_path.hpp"
#include "forkjoin/detail/transfer.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/join.hpp"

namespace fj::detail {

template <class T>
class promise;

// Whether a task with promise P returns a value (task<T>, T not void).
template <class P>
inline constexpr bool returns_value = true;
template <>
inline constexpr bool returns_value<promise<void>> = false;

// A task<T> whose body ended in a co_return while children it forked since its last join had not all been
// joined: the co_return expression was evaluated before the implicit join, so it may have read results the
// children had not written yet. Reported as an exception from the task, which its parent's join (or
// sync_wait) rethrows. Found where the task's continuation was stolen since that join (its final suspend then
// joins implicitly, on the slow path), and in checked builds also where nothing was stolen (frame's
// forked_since_join).
[[gnu::cold, gnu::noinline]] inline std::exception_ptr returned_before_join() noexcept {
  try {
    throw open_scope_error(
        "co_return of a value (evaluated before the implicit join, so it may read results of forked "
        "children that have not finished)");
  } catch (...) {
    return std::current_exception();  // that error, or std::bad_alloc if its message could not be made
  }
}

// Destroy a frame whose body has finished and whose children have all returned, and continue its parent
// (Algorithm 5). The caller owns the frame's stack. A forked frame that was the last child of a stolen parent
// waiting at its final suspend finishes that parent too, and so on up: a loop, not a recursion, so that a
// chain of a million such frames needs no OS stack (join.md §4).
[[gnu::noinline]] inline std::coroutine_handle<> finish(frame* self) noexcept {
  for (;;) {
    task_kind const kind = self->state.kind;
    frame* const parent = kind == task_kind::root ? nullptr : frame_of(self->parent());
    root_base* const root = kind == task_kind::root ? self->root : nullptr;
    std::exception_ptr e = std::move(self->exception);
    // Every child has returned, so the exception slot is final: without an exception the body returned its
    // value (a body that threw left one).
    if (self->state.at_final == final_wait::value_task && !e) [[unlikely]]
      e = returned_before_join();
    self->handle().destroy();
    switch (kind) {
      case task_kind::call:
        if (e) deliver_exception(parent, std::move(e));
        return parent->handle();
      case task_kind::fork:
        if (e) deliver_exception(parent, std::move(e));
        if (tls_owner.pop_discard()) return parent->handle();
        if (!returned_last(parent)) return std::noop_coroutine();
        if (parent->state.at_final == final_wait::no) return resume_at_join(parent);
        self = parent;  // the parent was waiting at its final suspend for us: finish it here
        continue;
      case task_kind::root:
        if (e) root->exception = std::move(e);
        worker_counters::bump(tls_worker->counters.roots_run);
        root->complete();
        return std::noop_coroutine();
    }
    internal_error("unknown task kind");
  }
}

// A forked child whose parent's continuation was stolen: arrive at the parent's join counter. A parent
// waiting at its final suspend (at_final) is finished instead of resumed (join.md §4).
FJ_DETAIL_SLOW_PATH inline std::coroutine_handle<> return_to_stolen_parent(
    std::coroutine_handle<> parent_coroutine) noexcept {
  frame* const parent = frame_of(parent_coroutine);
  if (!returned_last(parent)) return std::noop_coroutine();
  if (parent->state.at_final != final_wait::no) [[unlikely]]
    return finish(parent);
  return resume_at_join(parent);
}

// The final suspend of a task that cannot take the fast path: its continuation was stolen (so children may
// still run: join implicitly, as Cilk does), it is a root, it was left behind by a move, its parameters have
// destructors, or a child's exception is waiting to be passed up; in checked builds also a task<T> that
// forked since its last join. `ends` is final_wait::value_task for a task<T>, joining for a task<void>.
FJ_DETAIL_SLOW_PATH inline std::coroutine_handle<> final_slow(std::coroutine_handle<> h,
                                                              final_wait ends) noexcept {
  frame* const self = frame_of(h);
  if (self->state.steals != 0) {
    self->state.at_final = ends;
    if (!join_is_ready(self) && !arrive_at_join(h)) return std::noop_coroutine();
  } else if constexpr (k_stack_checks) {
    // Nothing stolen: every forked child has finished, but the co_return still came before a join.
    if (ends == final_wait::value_task && self->forked_since_join) self->state.at_final = ends;
  }
  return finish(self);
}

// What a task's final_suspend returns.
struct final_awaiter {
  [[nodiscard]] static constexpr bool await_ready() noexcept { return false; }

  template <class P>
  [[gnu::always_inline]] std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) const noexcept {
    frame* const self = &h.promise();
    // Stolen since its last join (children may still run: join implicitly), a root, parameters with
    // destructors, left behind by a move (frame_state), or a pending child exception: all take the
    // out-of-line path.
    std::uint64_t const state = self->state_word();
    constexpr final_wait ends = returns_value<P> ? final_wait::value_task : final_wait::joining;
    if ((state != k_call_state && state != k_fork_state) || self->exception) [[unlikely]] {
      return transfer(final_slow(h, ends));
    }
    if constexpr (k_stack_checks && returns_value<P>) {
      if (self->forked_since_join) return transfer(final_slow(h, ends));
    }
    std::coroutine_handle<> const parent = self->parent();
    // Never stolen since its last join, so the frame is on the stack this worker allocates on: its home
    // (stack.md "Where a frame lives"), which `home` need not hold.
    tls_stack->deallocate_last(h.address());
    if (state == k_call_state) return transfer(parent);
    if (tls_owner.pop_discard()) [[likely]]
      return transfer(parent);
    return transfer(return_to_stolen_parent(parent));
  }

  static constexpr void await_resume() noexcept {}
};

}  // namespace fj::detail
