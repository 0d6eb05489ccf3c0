#pragma once
// fj::fork and fj::call: start a child task now (paper Algorithm 3; docs/protocols/join.md §3 "The fork").
//   co_await fj::fork(&out, fn, args...);  // child runs now; the parent's continuation may be stolen
//   co_await fj::call(&out, fn, args...);  // child runs now; nothing to steal
//   co_await fj::fork(fn, args...);        // same, for fj::task<void> or a result you don't need
// fn(args...) must return fj::task<T>, and out must be a T*. The child is created on this worker's stack
// before the co_await suspends; arguments are passed as to any function (the coroutine copies by-value
// parameters into its frame; what references refer to must stay valid until the parent's join, which a
// temporary does not: it dies when the parent continues after the co_await, on a thief possibly before the
// child has finished; fj::fork rejects that at compile time where it can name fn's parameters, see
// temporary_argument). co_await the result at once: one that is destroyed unawaited leaves its child created
// but never started (builds without NDEBUG, and ASan builds, stop the process).
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

// The result of fj::fork/fj::call was destroyed without being awaited: its child was created and never
// started. Checked where k_stack_checks holds; elsewhere the child's parameters leak (their destructors never
// run; the frame's memory comes back when its parent's does).
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
  ~fork_awaitable() = default;
  ~fork_awaitable()
    requires k_stack_checks
  {
    if (child_) fork_dropped();
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

// A temporary bound to a reference parameter of a forked child dies at the end of the co_await statement,
// when the parent continues, possibly on a thief before the child has run: the child then reads a dead object
// (fj::call is immune to a temporary made by its caller: its child returns before the statement ends; not to
// one that a conversion makes inside make_fork, which dies before the child starts: issue 21). The check
// below needs the child's parameter types without overload resolution, which the language gives only for a
// function, a function pointer or reference, a member function pointer, and a class with exactly one
// non-template operator() (a lambda whose parameters are spelled out). A generic lambda, an overloaded
// function object and fj::recursive (its operator() is a template) are not checked.
template <class... Ts>
struct type_list {};

template <std::size_t I, class T, class... Ts>
struct type_at : type_at<I - 1, Ts...> {};
template <class T, class... Ts>
struct type_at<0, T, Ts...> {
  using type = T;
};

// Stands for a member function's implicit object parameter: a reference to the object argument.
template <class C>
struct object_parameter {};

template <class... P>
struct known_parameters {
  static constexpr bool known = true;
  using params = type_list<P...>;
};

// The parameter types of callable F, one per argument after fn; known is false where they cannot be named.
template <class F>
struct forked_parameters {
  static constexpr bool known = false;
  using params = void;
};
template <class R, class... P, bool NE>
struct forked_parameters<R(P...) noexcept(NE)> : known_parameters<P...> {};
template <class R, class... P, bool NE>
struct forked_parameters<R (*)(P...) noexcept(NE)> : known_parameters<P...> {};
template <class R, class C, class... P, bool NE>
struct forked_parameters<R (C::*)(P...) noexcept(NE)> : known_parameters<object_parameter<C>, P...> {};
template <class R, class C, class... P, bool NE>
struct forked_parameters<R (C::*)(P...) const noexcept(NE)> : known_parameters<object_parameter<C>, P...> {};
template <class R, class C, class... P, bool NE>
struct forked_parameters<R (C::*)(P...) & noexcept(NE)> : known_parameters<object_parameter<C>, P...> {};
template <class R, class C, class... P, bool NE>
struct forked_parameters<R (C::*)(P...) const & noexcept(NE)> : known_parameters<object_parameter<C>, P...> {
};
template <class R, class C, class... P, bool NE>
struct forked_parameters<R (C::*)(P...) && noexcept(NE)> : known_parameters<object_parameter<C>, P...> {};
template <class R, class C, class... P, bool NE>
struct forked_parameters<R (C::*)(P...) const && noexcept(NE)> : known_parameters<object_parameter<C>, P...> {
};

// A function object: the parameters of its only operator(), without the object parameter (the object is fn).
template <class Params>
struct without_object {
  static constexpr bool known = false;
};
template <class C, class... P>
struct without_object<type_list<object_parameter<C>, P...>> : known_parameters<P...> {};

template <class F>
  requires std::is_class_v<F> && requires { &F::operator(); }
struct forked_parameters<F> : without_object<typename forked_parameters<decltype(&F::operator())>::params> {};

template <class T>
inline constexpr bool is_reference_wrapper = false;
template <class T>
inline constexpr bool is_reference_wrapper<std::reference_wrapper<T>> = true;

// Binding parameter Param to an argument of forwarded type Arg (an lvalue reference for an lvalue, else an
// rvalue) leaves the reference on a temporary: the argument itself is one (an rvalue: std::move of a
// variable looks the same here and is rejected too), or it is converted into one.
template <class Param, class Arg>
consteval bool binds_temporary() {
  using P = std::remove_cvref_t<Param>;
  using A = std::remove_cvref_t<Arg>;
  if constexpr (!std::is_reference_v<Param> ||
                (std::is_lvalue_reference_v<Param> && !std::is_const_v<std::remove_reference_t<Param>>)) {
    return false;  // by value: the child's frame holds a copy; T&: binds lvalues only
  } else if constexpr (is_reference_wrapper<A>) {
    return binds_temporary<Param, typename A::type&>();  // unwrapped to the lvalue it refers to
  } else if constexpr (!std::is_lvalue_reference_v<Arg>) {
    return true;
  } else {
    return !std::is_same_v<P, A> && !std::is_base_of_v<P, A>;  // a converted lvalue is a temporary
  }
}

// A member function's object argument: an rvalue object dies with the statement, and the child's this with
// it.
template <class C, class Arg>
consteval bool binds_temporary_object() {
  using A = std::remove_cvref_t<Arg>;
  return !std::is_lvalue_reference_v<Arg> && (std::is_same_v<C, A> || std::is_base_of_v<C, A>);
}

template <class Param, class Arg>
struct argument_check {
  static constexpr bool dangles = binds_temporary<Param, Arg>();
};
template <class C, class Arg>
struct argument_check<object_parameter<C>, Arg> {
  static constexpr bool dangles = binds_temporary_object<C, Arg>();
};

template <class... P, class... A, std::size_t... I>
consteval std::size_t first_temporary(type_list<P...> /*params*/, type_list<A...> /*args*/,
                                      std::index_sequence<I...> /*pairs*/) {
  std::size_t found = 0;
  // || stops at the first one; found is 1-based.
  (void)((argument_check<typename type_at<I, P...>::type, typename type_at<I, A...>::type>::dangles &&
          (found = I + 1) != 0) ||
         ...);
  return found;
}

// The position (1 = the first argument after fn) of the first argument that a forked fn(args...) would keep
// a reference to a temporary of, or 0. Extra parameters (defaults) and unknown signatures are not checked.
template <class F, class... Args>
consteval std::size_t temporary_argument() {
  using signature = forked_parameters<std::remove_cvref_t<F>>;
  if constexpr (!signature::known) {
    return 0;
  } else {
    return []<class... P>(type_list<P...> params) {
      constexpr std::size_t n = sizeof...(P) < sizeof...(Args) ? sizeof...(P) : sizeof...(Args);
      return first_temporary(params, type_list<Args...>{}, std::make_index_sequence<n>{});
    }(typename signature::params{});
  }
}

// fj::call is not checked: its child returns before the co_await statement ends, and its caller's temporaries
// with it. A converted argument (a literal for a const std::string&) is made inside make_fork and dies before
// any child starts, for call as for fork; only fork rejects it so far (issue 21).
template <bool Fork, class F, class... Args>
consteval std::size_t fork_temporary_argument() {
  if constexpr (Fork) {
    return temporary_argument<F, Args...>();
  } else {
    return 0;
  }
}

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

// Each failed check below stops there (the if constexpr chains), so that its static_assert is the only error
// the compiler reports: nothing after it is instantiated.
template <bool Fork, class F, class... Args>
fork_awaitable<Fork> make_fork_no_out(F&& fn, Args&&... args) {
  if constexpr (!task_invocable<F, Args...>) {
    static_assert(task_invocable<F, Args...>,
                  "fj::fork(fn, args...) / fj::call(fn, args...): fn(args...) must return fj::task<T>");
    return fork_awaitable<Fork>(nullptr);
  } else if constexpr (constexpr std::size_t temporary = fork_temporary_argument<Fork, F, Args...>();
                       temporary != 0) {
    reject_temporary_argument<temporary>();
    return fork_awaitable<Fork>(nullptr);
  } else {
    tls_next_out = nullptr;
    auto child = std::invoke(std::forward<F>(fn), std::forward<Args>(args)...);
    return fork_awaitable<Fork>(child.release());
  }
}

template <bool Fork, class O, class F, class... Args>
fork_awaitable<Fork> make_fork_with_out(O out, F&& fn, Args&&... args) {
  if constexpr (!task_invocable<F, Args...>) {
    static_assert(
        task_invocable<F, Args...>,
        "fj::fork(&out, fn, args...) / fj::call(&out, fn, args...): fn(args...) must return fj::task<T>");
    return fork_awaitable<Fork>(nullptr);
  } else if constexpr (std::is_void_v<task_result_t<F, Args...>>) {
    static_assert(!std::is_void_v<task_result_t<F, Args...>>,
                  "fj::fork/fj::call: fn returns fj::task<void>, which has no result: drop the out argument");
    return fork_awaitable<Fork>(nullptr);
  } else if constexpr (!std::is_same_v<O, task_result_t<F, Args...>*>) {
    static_assert(
        std::is_same_v<O, task_result_t<F, Args...>*>,
        "fj::fork/fj::call: out must be a pointer to the child's result type T (fn returns fj::task<T>)");
    return fork_awaitable<Fork>(nullptr);
  } else if constexpr (constexpr std::size_t temporary = fork_temporary_argument<Fork, F, Args...>();
                       temporary != 0) {
    reject_temporary_argument<temporary>();
    return fork_awaitable<Fork>(nullptr);
  } else {
    tls_next_out = out;  // the child's promise reads it (promise<T>::out_)
    auto child = std::invoke(std::forward<F>(fn), std::forward<Args>(args)...);
    return fork_awaitable<Fork>(child.release());
  }
}

template <bool Fork, class... Xs>
fork_awaitable<Fork> make_fork(Xs&&... xs) {
  using shape = fork_shape<Xs...>;
  if constexpr (shape::no_out) {
    return make_fork_no_out<Fork>(std::forward<Xs>(xs)...);
  } else if constexpr (shape::with_out) {
    return make_fork_with_out<Fork>(std::forward<Xs>(xs)...);
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
