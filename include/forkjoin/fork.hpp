#pragma once
// fj::fork and fj::call: start a child task now (paper Algorithm 3; docs/protocols/join.md §3 "The fork").
//   co_await fj::fork(&out, fn, args...);  // child runs now; the parent's continuation may be stolen
//   co_await fj::call(&out, fn, args...);  // child runs now; nothing to steal
//   co_await fj::fork(fn, args...);        // same, for fj::task<void> or a result you don't need
// fn(args...) must return fj::task<T>, and out must be a T*. The child is created on this worker's stack
// before the co_await suspends; arguments are passed as to any function (the coroutine copies by-value
// parameters into its frame; what references refer to must stay valid until the child has finished). A fork's
// temporaries do not: they die when the parent continues after the co_await, on a thief possibly before the
// child has finished; nor, for fork or call, does a temporary that a conversion makes inside this header's
// call of fn (a literal for a const std::string&). Both are rejected at compile time where fn's parameters
// can be named (detail/arguments.hpp). co_await the result at once: one that is destroyed unawaited leaves
// its child created but never started (the process stops: for fork in every build, for call in checked
// builds, see fork_dropped).
//
// How a fork continues: the child runs at once; a thief may take the parent's continuation from the deque
// (detail/steal.hpp); the child's return pops the parent back or finds it stolen (detail/task_return.hpp);
// the parent's co_await fj::join meets its children on the join counter (join.hpp); stacks change hands
// through detail/stack_ownership.hpp. docs/architecture.md follows one fork through these files.

#include <concepts>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

#include "forkjoin/detail/arguments.hpp"
#include "forkjoin/detail/chaos.hpp"
#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/slow_path.hpp"
#include "forkjoin/detail/transfer.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "forkjoin/task.hpp"

namespace fj::detail {

// The deque could not grow (out of memory): nothing was published, so the forked child runs as a call. The
// fork loses its parallelism, not its result, and the hot path needs no exception handling. Out of line so
// that the compiler does not merge its counter increment with the push's store of bottom (which cost the push
// an instruction).
FJ_DETAIL_SLOW_PATH inline void run_fork_as_call(frame* child) noexcept {
  child->state.kind = task_kind::call;
  worker_counters::bump(tls_worker->counters.forks_run_as_calls);
}

// A task's frame is freed in last-in first-out order on the stack it was made on, so a task must be started
// right after it is created, on the same worker: checked where k_stack_checks holds (NDEBUG not defined, or
// ASan); elsewhere the misuse corrupts the stack.
[[noreturn, gnu::cold, gnu::noinline]] inline void started_out_of_order() noexcept {
  fatal(
      "fj::fork/fj::call started a task that was not created right before it (a task created earlier, or a "
      "task or fj::scratch array created after it, breaks the frame stack's last-in first-out order): create "
      "each task in the fork or call that starts it");
}

// The result of fj::fork/fj::call was destroyed without being awaited (`fj::fork(&a, fib, n - 1);` without
// co_await, or a kept result dropped on an early return): its child was created and never started, so its
// result is never written and its parameters are never destroyed. Checked for fj::fork in every build: the
// awaiter's destructor runs anyway, and the test after a fork's resume is the only cost on the hot path. For
// fj::call only where k_stack_checks holds: the same test after every call's resume as well costs more than
// the hot path's budget (docs/misuse.md); elsewhere the compiler's [[nodiscard]] warning is the guard.
[[noreturn, gnu::cold, gnu::noinline]] inline void fork_dropped() noexcept {
  fatal(
      "the result of fj::fork/fj::call was destroyed without being co_awaited, so its child task was created "
      "and never started: co_await fj::fork(...) / fj::call(...) at once");
}

// co_await fj::fork (Fork = true) and fj::call (Fork = false). The child frame already exists (suspended at
// its initial suspend point, allocated on this worker's stack).
template <bool Fork>
class [[nodiscard]] fork_awaitable : public runtime_awaitable {
 public:
  explicit fork_awaitable(std::coroutine_handle<> child) noexcept : child_(child) {}
  fork_awaitable(fork_awaitable&& other) noexcept : child_(std::exchange(other.child_, nullptr)) {}
  fork_awaitable(const fork_awaitable&) = delete;
  fork_awaitable& operator=(const fork_awaitable&) = delete;
  fork_awaitable& operator=(fork_awaitable&&) = delete;
  ~fork_awaitable() {
    if constexpr (Fork || k_stack_checks) {
      if (child_) [[unlikely]]
        fork_dropped();
    }
  }

  [[nodiscard]] static constexpr bool await_ready() noexcept { return false; }

  template <class P>
  [[gnu::always_inline]] std::coroutine_handle<> await_suspend(std::coroutine_handle<P> parent) noexcept {
    static_assert(is_task_promise<P>,
                  "fj::fork and fj::call can only be awaited inside a coroutine that returns fj::task<T>");
    // Read everything we need from this awaiter before publishing the parent: once it is on the deque a thief
    // may resume it, and this awaiter lives in the parent's frame (docs/traps.md "Read the awaiter before
    // publishing the parent").
    std::coroutine_handle<> const child_coroutine = child_;
    frame* const child = frame_of(child_coroutine);
    if constexpr (Fork || k_stack_checks) child_ = nullptr;  // started: the destructor's check must not fire
    if constexpr (k_stack_checks) {
      if (!tls_stack->may_be_top(child_coroutine.address())) [[unlikely]]
        started_out_of_order();
    }
    child->parent_address = parent.address();
    if constexpr (Fork && k_stack_checks) parent.promise().forked_since_join = true;
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

// Which of the two spellings a fork/call argument list is.
template <class... Xs>
struct fork_shape {
  static constexpr bool no_out = false;
  static constexpr bool with_out = false;
};

template <class F, class... Args>
struct fork_shape<F, Args...> {
  // fj::fork(fn, args...): preferred whenever the first argument can be called with the rest.
  static constexpr bool no_out = std::invocable<F, Args...>;
  static constexpr bool with_out = false;
};

template <class O, class F, class... Args>
  requires std::is_pointer_v<std::remove_cvref_t<O>>
struct fork_shape<O, F, Args...> {
  static constexpr bool no_out = std::invocable<O, F, Args...>;
  static constexpr bool with_out = !no_out && std::invocable<F, Args...>;
};

// Instantiated only for a nonzero Argument: the failed `Argument == 0` shows the compiler's reader which one.
template <std::size_t Argument>
constexpr void reject_temporary_argument() {
  static_assert(
      Argument == 0,
      "fj::fork: argument N (N is the number in the failed `N == 0`; 1 is the first after fn) is a "
      "temporary bound to a reference parameter of the forked function; it dies when the parent "
      "continues, possibly before the child has run: pass it by value or keep it in a variable that "
      "outlives the join");
}

template <std::size_t Argument>
constexpr void reject_converted_argument() {
  static_assert(
      Argument == 0,
      "fj::call: argument N (N is the number in the failed `N == 0`; 1 is the first after fn) must be "
      "converted to bind a reference parameter of the called function, and the temporary that conversion "
      "makes inside fj::call dies before the child starts: convert it yourself (e.g. std::string(\"...\")) "
      "or take the parameter by value");
}

// Creates the child of a fork (Fork) or a call, its result going to out (std::nullptr_t: no result). Each
// failed check stops there (one if constexpr chain), so that its static_assert is the only error the compiler
// reports: nothing after it is instantiated. The argument checks are detail/arguments.hpp.
template <bool Fork, class O, class F, class... Args>
fork_awaitable<Fork> make_child(O out, F&& fn, Args&&... args) {
  constexpr bool with_out = !std::is_null_pointer_v<O>;
  if constexpr (!with_out && !task_invocable<F, Args...>) {
    static_assert(task_invocable<F, Args...>,
                  "fj::fork(fn, args...) / fj::call(fn, args...): fn(args...) must return fj::task<T>");
    return fork_awaitable<Fork>(nullptr);
  } else if constexpr (!task_invocable<F, Args...>) {
    static_assert(
        task_invocable<F, Args...>,
        "fj::fork(&out, fn, args...) / fj::call(&out, fn, args...): fn(args...) must return fj::task<T>");
    return fork_awaitable<Fork>(nullptr);
  } else if constexpr (with_out && std::is_void_v<task_result_t<F, Args...>>) {
    static_assert(!std::is_void_v<task_result_t<F, Args...>>,
                  "fj::fork/fj::call: fn returns fj::task<void>, which has no result: drop the out argument");
    return fork_awaitable<Fork>(nullptr);
  } else if constexpr (with_out && !std::is_same_v<O, task_result_t<F, Args...>*>) {
    static_assert(
        std::is_same_v<O, task_result_t<F, Args...>*>,
        "fj::fork/fj::call: out must be a pointer to the child's result type T (fn returns fj::task<T>)");
    return fork_awaitable<Fork>(nullptr);
  } else if constexpr (constexpr std::size_t temporary = Fork ? temporary_argument<F, Args...>() : 0;
                       temporary != 0) {
    reject_temporary_argument<temporary>();
    return fork_awaitable<Fork>(nullptr);
  } else if constexpr (constexpr std::size_t converted = Fork ? 0 : converted_argument<F, Args...>();
                       converted != 0) {
    // fj::call takes its caller's temporaries (its child returns before the statement ends), not the ones a
    // conversion makes inside this function (a fork's are rejected above, with the rest of its temporaries).
    reject_converted_argument<converted>();
    return fork_awaitable<Fork>(nullptr);
  } else {
    tls_next_out = out;  // the child's promise reads it (promise<T>::out_); null for no result
    auto child = std::invoke(std::forward<F>(fn), std::forward<Args>(args)...);
    return fork_awaitable<Fork>(child.release());
  }
}

template <bool Fork, class... Xs>
fork_awaitable<Fork> make_fork(Xs&&... xs) {
  using shape = fork_shape<Xs...>;
  if constexpr (shape::no_out) {
    return make_child<Fork>(nullptr, std::forward<Xs>(xs)...);
  } else if constexpr (shape::with_out) {
    return make_child<Fork>(std::forward<Xs>(xs)...);
  } else {
    static_assert(
        dependent_false<fork_shape<Xs...>>,
        "fj::fork/fj::call expect (fn, args...) or (&out, fn, args...) where fn(args...) is callable and "
        "returns fj::task<T>");
    return fork_awaitable<Fork>(nullptr);
  }
}

}  // namespace fj::detail

namespace fj {

// Runs fn(args...) now; the calling task's continuation becomes stealable until the next join.
template <class... Xs>
[[nodiscard]] detail::fork_awaitable<true> fork(Xs&&... xs) {
  return detail::make_fork<true>(std::forward<Xs>(xs)...);
}

// Runs fn(args...) now, like a function call; nothing becomes stealable.
template <class... Xs>
[[nodiscard]] detail::fork_awaitable<false> call(Xs&&... xs) {
  return detail::make_fork<false>(std::forward<Xs>(xs)...);
}

}  // namespace fj
