#pragma once
// The awaiters behind co_await fj::fork / fj::call / fj::join and a task's final suspend: the hot paths of
// paper Algorithms 3, 4 and 5. Slow paths are out of line in transitions.hpp.

#include <bit>
#include <concepts>
#include <coroutine>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <utility>

#include "forkjoin/detail/chaos.hpp"
#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/slow_path.hpp"
#include "forkjoin/detail/transfer.hpp"
#include "forkjoin/detail/transitions.hpp"
#include "forkjoin/detail/worker_context.hpp"

namespace fj::detail {

template <class P>
inline constexpr bool is_task_promise = std::derived_from<P, frame>;

// Base of the awaitables a task may co_await (fork, call, resume_on): the promise's await_transform passes
// these through and rejects everything else with a readable error.
struct runtime_awaitable {};

// The deque could not grow (out of memory): nothing was published, so the forked child runs as a call. The
// fork loses its parallelism, not its result, and the hot path needs no exception handling. Out of line so
// that the compiler does not merge its counter increment with the push's store of bottom (which cost the push
// an instruction).
FJ_DETAIL_SLOW_PATH inline void run_fork_as_call(frame* child) noexcept {
  child->state.kind = task_kind::call;
  worker_counters::bump(tls_worker->counters.forks_run_as_calls);
}

// A task's frame is freed in last-in first-out order on the stack it was made on, so a task must be started
// right after it is created, on the same worker: checked in debug and ASan builds (in release builds the
// misuse corrupts the stack).
[[noreturn, gnu::cold, gnu::noinline]] inline void started_out_of_order() noexcept {
  std::fprintf(stderr,
               "fj::fork/fj::call: the task was not created right before it was started (a task created "
               "earlier, or a task or fj::scratch array created after it, breaks the frame stack's "
               "last-in first-out order): create each task in the fork or call that starts it\n");
  std::abort();
}

// The result of fj::fork/fj::call was destroyed without being awaited: its child was created and never
// started. Checked in debug and ASan builds (release builds leak the child's parameters: their destructors
// never run; the frame's memory comes back when its parent's does).
[[noreturn, gnu::cold, gnu::noinline]] inline void spawn_dropped() noexcept {
  std::fprintf(stderr,
               "fj::fork/fj::call: the result was destroyed without being co_awaited, so its child task was "
               "created and never started: co_await fj::fork(...) / fj::call(...) at once\n");
  std::abort();
}

// Algorithm 3: fork (Fork = true) and call (Fork = false). The child frame already exists (suspended at its
// initial suspend point, allocated on this worker's stack).
template <bool Fork>
class [[nodiscard]] spawn_awaitable : public runtime_awaitable {
 public:
  explicit spawn_awaitable(std::coroutine_handle<> child) noexcept : child_(child) {}
  spawn_awaitable(spawn_awaitable&& other) noexcept : child_(std::exchange(other.child_, nullptr)) {}
  spawn_awaitable(const spawn_awaitable&) = delete;
  spawn_awaitable& operator=(const spawn_awaitable&) = delete;
  spawn_awaitable& operator=(spawn_awaitable&&) = delete;
  ~spawn_awaitable() = default;
  ~spawn_awaitable()
    requires k_stack_checks
  {
    if (child_) spawn_dropped();
  }

  [[nodiscard]] static constexpr bool await_ready() noexcept { return false; }

  template <class P>
  [[gnu::always_inline]] std::coroutine_handle<> await_suspend(std::coroutine_handle<P> parent) noexcept {
    static_assert(is_task_promise<P>,
                  "fj::fork and fj::call can only be awaited inside a coroutine that returns fj::task<T>");
    // Read everything we need from this awaiter before publishing the parent: once it is on the deque a thief
    // may resume it, and this awaiter lives in the parent's frame (PITFALLS: "Read everything ... before").
    std::coroutine_handle<> const child_coroutine = child_;
    frame* const child = frame_of(child_coroutine);
    if constexpr (k_stack_checks) {
      child_ = nullptr;  // started: the destructor's check must not fire
      if (!tls_stack->may_be_top(child_coroutine.address())) [[unlikely]]
        started_out_of_order();
    }
    child->parent_address = parent.address();
    if constexpr (Fork) {
      // The child is fresh (kind call, nothing else set but has_destructors): adding the kind in the whole
      // eight-byte word keeps has_destructors without a separate load, and lets the final suspend's load of
      // the word be forwarded from this store (a byte store in between would stall it).
      static_assert(k_fork_state - k_call_state == static_cast<std::uint64_t>(task_kind::fork));
      child->set_state_word(child->state_word() + static_cast<std::uint64_t>(task_kind::fork));
      // LIFETIME: after this push the parent (and this awaiter) may be resumed by a thief.
      if (!tls_owner.try_push(parent)) [[unlikely]] {
        run_fork_as_call(child);
      }
      chaos_point();
    }
    return transfer(child_coroutine);
  }

  static constexpr void await_resume() noexcept {}

 private:
  std::coroutine_handle<> child_;
};

// Algorithm 4: the steps of co_await fj::join on a frame, shared by the two awaiters below.
struct join_steps {
  [[nodiscard, gnu::always_inline]] static bool ready(frame* self) noexcept { return join_is_ready(self); }

  // Suspend unless we are the last to arrive; in that case continue at once on this worker.
  static bool suspend(std::coroutine_handle<> h) noexcept { return !arrive_at_join(h); }

  // Every path to here has reset the join already (join_is_ready, arrive_at_join, or the last child's
  // resume_at_join), so only a child's exception is left to look at.
  [[gnu::always_inline]] static void resume(frame* self) {
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
// returns it by reference, so a join keeps nothing in the coroutine frame. A one-pointer awaiter instead is
// stored there and reloaded right before the exception test: 2 instructions per fork, and about 3 % of fib's
// time (fj-overhead T1/Ts-out 4.57-4.65 -> 4.44-4.48, interleaved runs of one binary layout).
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

#if defined(__clang__)
#define FJ_DETAIL_JOIN_BY_REFERENCE 1
#else
#define FJ_DETAIL_JOIN_BY_REFERENCE 0
#endif

// Algorithm 5: what happens when a task's body has finished.
struct final_awaiter {
  [[nodiscard]] static constexpr bool await_ready() noexcept { return false; }

  template <class P>
  [[gnu::always_inline]] std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) const noexcept {
    frame* const self = &h.promise();
    // Stolen since its last join (children may still run: join implicitly), a root, parameters with
    // destructors, left behind by a move (frame_state), or a pending child exception: all take the
    // out-of-line path.
    std::uint64_t const state = self->state_word();
    if ((state != k_call_state && state != k_fork_state) || self->exception) [[unlikely]] {
      return transfer(final_slow(h));
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
