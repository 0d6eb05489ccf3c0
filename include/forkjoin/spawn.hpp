#pragma once
// fj::fork and fj::call: start a child task now (paper Algorithm 3).
//   co_await fj::fork(&out, fn, args...);  // child runs now; the parent's continuation may be stolen
//   co_await fj::call(&out, fn, args...);  // child runs now; nothing to steal
//   co_await fj::fork(fn, args...);        // same, for fj::task<void> or a result you don't need
// fn(args...) must return fj::task<T>, and out must be a T*. The child is created on this worker's stack
// before the co_await suspends; arguments are passed as to any function (the coroutine copies by-value
// parameters into its frame; what references refer to must stay valid until the parent's join, which a
// temporary does not: it dies when the parent continues after the co_await, on a thief possibly before the
// child has finished). co_await the result at once: one that is destroyed unawaited leaves its child created
// but never started (debug and ASan builds stop the process).

#include <concepts>
#include <functional>
#include <type_traits>
#include <utility>

#include "forkjoin/detail/awaitables.hpp"
#include "forkjoin/task.hpp"

namespace fj {

// fn(args...) can be called and returns an fj::task.
template <class F, class... Args>
concept task_invocable =
    std::invocable<F, Args...> && is_task_v<std::remove_cvref_t<std::invoke_result_t<F, Args...>>>;

// The T of the fj::task<T> that fn(args...) returns.
template <class F, class... Args>
  requires task_invocable<F, Args...>
using task_result_t = typename std::remove_cvref_t<std::invoke_result_t<F, Args...>>::value_type;

namespace detail {

template <class... Xs>
struct spawn_shape {
  static constexpr bool no_out = false;
  static constexpr bool with_out = false;
};

template <class F, class... Args>
struct spawn_shape<F, Args...> {
  // fj::fork(fn, args...): preferred whenever the first argument can be called with the rest.
  static constexpr bool no_out = std::invocable<F, Args...>;
  static constexpr bool with_out = false;
};

template <class O, class F, class... Args>
  requires std::is_pointer_v<std::remove_cvref_t<O>>
struct spawn_shape<O, F, Args...> {
  static constexpr bool no_out = std::invocable<O, F, Args...>;
  static constexpr bool with_out = !no_out && std::invocable<F, Args...>;
};

template <bool Fork, class F, class... Args>
spawn_awaitable<Fork> spawn_no_out(F&& fn, Args&&... args) {
  static_assert(task_invocable<F, Args...>,
                "fj::fork(fn, args...) / fj::call(fn, args...): fn(args...) must return fj::task<T>");
  tls_next_out = nullptr;
  auto child = std::invoke(std::forward<F>(fn), std::forward<Args>(args)...);
  return spawn_awaitable<Fork>(child.release());
}

template <bool Fork, class O, class F, class... Args>
spawn_awaitable<Fork> spawn_with_out(O out, F&& fn, Args&&... args) {
  static_assert(
      task_invocable<F, Args...>,
      "fj::fork(&out, fn, args...) / fj::call(&out, fn, args...): fn(args...) must return fj::task<T>");
  using result = task_result_t<F, Args...>;
  static_assert(!std::is_void_v<result>,
                "fj::fork/fj::call: fn returns fj::task<void>, which has no result: drop the out argument");
  static_assert(
      std::is_same_v<O, result*>,
      "fj::fork/fj::call: out must be a pointer to the child's result type T (fn returns fj::task<T>)");
  tls_next_out = out;  // the child's promise reads it (promise<T>::out_)
  auto child = std::invoke(std::forward<F>(fn), std::forward<Args>(args)...);
  return spawn_awaitable<Fork>(child.release());
}

template <bool Fork, class... Xs>
spawn_awaitable<Fork> spawn(Xs&&... xs) {
  using shape = spawn_shape<Xs...>;
  if constexpr (shape::no_out) {
    return spawn_no_out<Fork>(std::forward<Xs>(xs)...);
  } else if constexpr (shape::with_out) {
    return spawn_with_out<Fork>(std::forward<Xs>(xs)...);
  } else {
    static_assert(
        dependent_false<spawn_shape<Xs...>>,
        "fj::fork/fj::call expect (fn, args...) or (&out, fn, args...) where fn(args...) is callable and "
        "returns fj::task<T>");
    return spawn_awaitable<Fork>(nullptr);
  }
}

}  // namespace detail

// Runs fn(args...) now; the calling task's continuation becomes stealable until the next join.
template <class... Xs>
[[nodiscard]] detail::spawn_awaitable<true> fork(Xs&&... xs) {
  return detail::spawn<true>(std::forward<Xs>(xs)...);
}

// Runs fn(args...) now, like a function call; nothing becomes stealable.
template <class... Xs>
[[nodiscard]] detail::spawn_awaitable<false> call(Xs&&... xs) {
  return detail::spawn<false>(std::forward<Xs>(xs)...);
}

}  // namespace fj
