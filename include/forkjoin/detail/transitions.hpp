#pragma once
// The slow paths of fork, join and return (paper Algorithms 4 and 5 beyond their first lines): split-counter
// joins, moving stack ownership between workers, finishing a frame whose children outlived its body, and
// delivering exceptions. The hot paths live inline in task.hpp and spawn.hpp. Protocol:
// docs/protocols/join.md, stack ownership: docs/protocols/stack.md.

#include <atomic>
#include <coroutine>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <utility>

#include "forkjoin/detail/atomics.hpp"
#include "forkjoin/detail/chaos.hpp"
#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/root.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/slow_path.hpp"
#include "forkjoin/detail/worker_context.hpp"

namespace fj::detail {

[[noreturn, gnu::cold]] inline void broken_invariant(const char* what) noexcept {
  std::fprintf(stderr, "fj: internal invariant broken: %s\n", what);
  std::abort();
}

// ---- stack ownership (stack.md "Ownership between workers") ----

// A worker that adopts a frame's stack at a join must have emptied its own. What leaves frames there is a
// frame created and not freed in LIFO order across the fork and its join: user misuse, so the message names
// it instead of calling it an internal error.
[[noreturn, gnu::cold]] inline void frames_left_at_join() noexcept {
  std::fprintf(
      stderr,
      "fj: a worker taking over a stack at a join still had frames on its own: an fj::task created and "
      "kept unstarted, or an fj::scratch array kept alive, across a fork and its join leaves them there "
      "(README: \"Misuse and what it produces\")\n");
  std::abort();
}

// Make `home` this worker's stack. The stack held until now must be empty: it becomes the spare (or is
// freed).
inline void take_stack(segmented_stack* home) noexcept {
  // fj::scratch arrays abandoned on `home` by a thief before this join are on top of it now (stack.md
  // "Abandoned blocks").
  home->release_abandoned_on_top();
  segmented_stack* current = tls_stack;
  if (current == home) return;
  if (!current->empty()) frames_left_at_join();
  worker_context* w = tls_worker;
  if (w->spare == nullptr) {
    w->spare = current;
  } else {
    delete current;
  }
  use_stack(w, home);
}

// Give up the current stack (another worker will adopt it when it resumes the frame on it) and continue on an
// empty one: the spare if there is one.
inline void give_up_stack() noexcept {
  worker_context* w = tls_worker;
  segmented_stack* fresh = std::exchange(w->spare, nullptr);
  if (fresh == nullptr) {
    fresh = new (std::nothrow) segmented_stack();
    if (fresh == nullptr) broken_invariant("out of memory allocating a worker stack");
  }
  use_stack(w, fresh);
}

// ---- exceptions (join.md §5) ----

// Store `e` in the first-exception slot of `target`, unless another exception got there first.
inline void deliver_exception(frame* target, std::exception_ptr e) noexcept {
  // relaxed: the flag only arbitrates between writers; the winner's write of `exception` reaches the reader
  // through the join (the winner's release fetch_sub on joins, or program order on one worker).
  if (target->exception_claimed.exchange(1, std::memory_order_relaxed) == 0) {  // model: join.exception.claim
    target->exception = std::move(e);
  } else if (worker_context* w = tls_worker) {
    worker_counters::bump(w->counters.exceptions_dropped);
  }
}

// A task's own exception, from its unhandled_exception (the catch handler around its body): into its own
// first-exception slot. Out of line and given the handle, not the frame (frame_of explains why).
[[gnu::noinline]] inline void deliver_current_exception(std::coroutine_handle<> h) noexcept {
  deliver_exception(frame_of(h), std::current_exception());
}

// ---- the join counter (join.md §2-3) ----

// After a completed join: restore the counter for the next fork-join scope. Only the worker running the frame
// touches it now.
inline void reset_join(frame* self) noexcept {
  self->state.steals = 0;
  // relaxed: no other thread can reach this counter until a later steal, which synchronizes through the
  // deque.
  self->joins.store(k_join_init, std::memory_order_relaxed);  // model: join.reset
}

// The parent side of a join, for a frame whose continuation was stolen: returns true if every child has
// already returned (the caller continues the frame, now on the frame's own stack, its join reset), false if a
// child will continue it. (Like the other slow paths a resume function calls, it takes the frame's coroutine
// handle: frame_of explains why.)
FJ_DETAIL_SLOW_PATH inline bool arrive_at_join(std::coroutine_handle<> h) noexcept {
  frame* const self = frame_of(h);
  segmented_stack* const home = self->home;
  std::uint32_t const ours = k_join_init - self->state.steals;
  segmented_stack* const current = tls_stack;
  chaos_point();
  // LIFETIME: after this fetch_sub the last child may resume or finish `self` on another worker; read nothing
  // of it afterwards unless we are last.
  // acq_rel: release publishes the frame's state (its locals, at_final) to the child that arrives last;
  // acquire pairs with the release fetch_sub of every child that returned before us, when we are last.
  if (self->joins.fetch_sub(ours, std::memory_order_acq_rel) == ours) {  // model: join.parent.fetch_sub
    take_stack(home);
    reset_join(self);
    return true;
  }
  if (current == home) give_up_stack();
  return false;
}

FJ_DETAIL_SLOW_PATH inline bool stolen_join_is_ready(std::coroutine_handle<> h) noexcept {
  frame* const self = frame_of(h);
  // acquire: pairs with the release fetch_sub of each child that returned to this stolen frame.
  if (self->joins.load(std::memory_order_acquire) ==
      k_join_init - self->state.steals) {  // model: join.ready.load
    take_stack(self->home);
    reset_join(self);
    return true;
  }
  return false;
}

// True when a join needs no suspension: nothing was stolen, or every stolen-from child has already returned
// (then the join is reset).
[[gnu::always_inline]] inline bool join_is_ready(frame* self) noexcept {
  // The analyzer does not see a coroutine's promise constructed in its frame, so it takes steals for garbage.
  if (self->state.steals == 0) [[likely]]  // NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult)
    return true;
  return stolen_join_is_ready(self->handle());
}

std::coroutine_handle<> finish(frame* self) noexcept;

// For the last child to return to a stolen parent that waits at a join (not at its final suspend): the join
// is complete, so reset it and resume the parent there.
inline std::coroutine_handle<> resume_at_join(frame* f) noexcept {
  reset_join(f);
  return f->handle();
}

// In a TSan build the RMW it follows is acq_rel instead (TSan does not model fences). A template, so that the
// fence is not even instantiated there: g++ rejects atomic_thread_fence under -fsanitize=thread (-Wtsan).
template <bool Tsan = tsan_build>
inline void acquire_fence_unless_tsan() noexcept {
  if constexpr (!Tsan) std::atomic_thread_fence(std::memory_order_acquire);  // model: join.fence.body
}

// Algorithm 5 lines 13-23: a forked child has returned and its parent's continuation was stolen. True if it
// was the last of the parent's children to return: the caller then owns the parent and its stack.
inline bool returned_last(frame* parent) noexcept {
  // Whether the parent's frame is on our stack, asked of the stack and not of parent->home: the thief that
  // took the parent may be writing home right now (stack.md "Where a frame lives"); the answer is read
  // before the fetch_sub, after which the last arrival may adopt our stack.
  segmented_stack* const current = tls_stack;
  bool const on_our_stack = current->holds(parent);
  chaos_point();
  // LIFETIME: after this fetch_sub the parent may be resumed (and freed) by another worker.
  // release: publishes this child's writes (its result through the out pointer, a delivered exception, the
  // frames it freed on `home`) to whoever continues the parent. TSan does not model fences, so its build
  // makes this RMW acq_rel instead of adding the acquire fence below (join.md §3).
  constexpr std::memory_order child_order =
      tsan_build ? std::memory_order_acq_rel : std::memory_order_release;  // model: join.child.order
  if (parent->joins.fetch_sub(1, child_order) == 1) {                      // model: join.child.fetch_sub
    // acquire: we are last; pairs with the release half of the parent's acq_rel fetch_sub in arrive_at_join
    // and with the release fetch_sub of every other child, making the parent's frame and stack ours.
    acquire_fence_unless_tsan();  // model: join.child.fence
    // The thief's write of home happens before the parent's arrival, which our acquire follows.
    if constexpr (k_stack_checks) {
      if (on_our_stack != (current == parent->home))
        broken_invariant("a stolen frame's home is not its stack");
    }
    take_stack(parent->home);
    return true;
  }
  if (on_our_stack) give_up_stack();
  return false;
}

// A parent waiting at its final suspend (at_final) is finished instead of resumed (join.md §4).
FJ_DETAIL_SLOW_PATH inline std::coroutine_handle<> return_to_stolen_parent(
    std::coroutine_handle<> parent_coroutine) noexcept {
  frame* const parent = frame_of(parent_coroutine);
  if (!returned_last(parent)) return std::noop_coroutine();
  if (parent->state.at_final) [[unlikely]]
    return finish(parent);
  return resume_at_join(parent);
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
    self->handle().destroy();
    switch (kind) {
      case task_kind::call:
        if (e) deliver_exception(parent, std::move(e));
        return parent->handle();
      case task_kind::fork:
        if (e) deliver_exception(parent, std::move(e));
        if (tls_owner.pop_discard()) return parent->handle();
        if (!returned_last(parent)) return std::noop_coroutine();
        if (!parent->state.at_final) return resume_at_join(parent);
        self = parent;  // the parent was waiting at its final suspend for us: finish it here
        continue;
      case task_kind::root:
        if (e) root->exception = std::move(e);
        worker_counters::bump(tls_worker->counters.roots_run);
        root->complete();
        return std::noop_coroutine();
    }
    broken_invariant("unknown task kind");
  }
}

// The final suspend of a task that cannot take the fast path: its continuation was stolen (so children may
// still run: join implicitly, as Cilk does) or a child's exception is waiting to be passed up.
FJ_DETAIL_SLOW_PATH inline std::coroutine_handle<> final_slow(std::coroutine_handle<> h) noexcept {
  frame* const self = frame_of(h);
  if (self->state.steals != 0) {
    self->state.at_final = true;
    if (!join_is_ready(self) && !arrive_at_join(h)) return std::noop_coroutine();
  }
  return finish(self);
}

}  // namespace fj::detail
