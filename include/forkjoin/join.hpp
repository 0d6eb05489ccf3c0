#pragma once
// co_await fj::join: wait for every child this task has forked since its last join, then rethrow the first
// exception any of them (or any called child) threw.
//
// Behind it, the join protocol (paper Algorithm 4 and Algorithm 5 lines 13-23; docs/protocols/join.md §2, §3
// "The join" and §5): a split counter in the frame that the parent and the children that found it stolen
// count down, wait-free, and whoever arrives last continues the parent on the parent's stack; and the
// first-exception slot those children fill.

#include <atomic>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <utility>

#include "forkjoin/detail/atomics.hpp"
#include "forkjoin/detail/chaos.hpp"
#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/slow_path.hpp"
#include "forkjoin/detail/stack_ownership.hpp"
#include "forkjoin/detail/worker_context.hpp"

namespace fj {

struct join_t {
  explicit constexpr join_t() = default;
};

inline constexpr join_t join{};

}  // namespace fj

namespace fj::detail {

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

// ---- the parent's side (join.md §3 "The join") ----

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

// The steps of co_await fj::join on a frame, shared by the two awaiters below.
struct join_steps {
  [[nodiscard, gnu::always_inline]] static bool ready(frame* self) noexcept { return join_is_ready(self); }

  // Suspend unless we are the last to arrive; in that case continue at once on this worker.
  static bool suspend(std::coroutine_handle<> h) noexcept { return !arrive_at_join(h); }

  // Every path to here has reset the join already (join_is_ready, arrive_at_join, or the last child's
  // resume_at_join), so only a child's exception is left to look at.
  [[gnu::always_inline]] static void resume(frame* self) {
    if constexpr (k_stack_checks) self->forked_since_join = false;
    if (self->exception) [[unlikely]]
      rethrow(self->handle());
  }

 private:
  [[noreturn, gnu::cold]] static void rethrow(std::coroutine_handle<> h) {
    frame* const self = frame_of(h);
    std::exception_ptr e = std::move(self->exception);
    self->exception = nullptr;
    // relaxed: all children have returned; no other thread touches this flag until the next fork.
    self->exception_claimed.store(0, std::memory_order_relaxed);  // model: join.exception.clear
    std::rethrow_exception(std::move(e));
  }
};

// With clang a task's frame is its own join awaiter: the promise derives from this class and await_transform
// returns it by reference, so a join keeps nothing in the coroutine frame. A one-pointer awaiter would be
// stored there and reloaded right before the exception test, on every join (docs/experiments.md).
class joinable_frame : public frame {
 public:
  joinable_frame() noexcept = default;
  joinable_frame(const joinable_frame&) = delete;
  joinable_frame& operator=(const joinable_frame&) = delete;
  joinable_frame(joinable_frame&&) = delete;
  joinable_frame& operator=(joinable_frame&&) = delete;
  ~joinable_frame() = default;

  [[nodiscard, gnu::always_inline]] bool await_ready() noexcept { return join_steps::ready(this); }
  bool await_suspend(std::coroutine_handle<> h) noexcept { return join_steps::suspend(h); }
  [[gnu::always_inline]] void await_resume() { join_steps::resume(this); }
};

// With g++ the join is awaited through this one-pointer awaiter, by value: g++-12 copies an awaiter that
// await_transform returns as an lvalue (the standard uses it in place), and a frame cannot be copied.
class join_awaiter {
 public:
  explicit join_awaiter(frame* self) noexcept : self_(self) {}

  [[nodiscard, gnu::always_inline]] bool await_ready() const noexcept { return join_steps::ready(self_); }
  bool await_suspend(std::coroutine_handle<> h) const noexcept { return join_steps::suspend(h); }
  [[gnu::always_inline]] void await_resume() const { join_steps::resume(self_); }

 private:
  frame* self_;
};

// Which of the two awaiters the promise hands out for co_await fj::join (task.hpp).
#if defined(__clang__)
#define FJ_DETAIL_JOIN_BY_REFERENCE 1
#else
#define FJ_DETAIL_JOIN_BY_REFERENCE 0
#endif

// ---- the children's side (join.md §3 "Return to a stolen parent") ----

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
      if (on_our_stack != (current == parent->home)) internal_error("a stolen frame's home is not its stack");
    }
    take_stack(parent->home);
    return true;
  }
  if (on_our_stack) give_up_stack();
  return false;
}

}  // namespace fj::detail
