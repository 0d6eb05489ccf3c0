#pragma once
// fj::task<T>: the return type of every forkjoin coroutine. A task is created suspended, with its frame on
// the current worker's segmented stack, and is started only by co_await fj::fork / fj::call (fork.hpp) or by
// fj::sync_wait. Its promise decides where the frame lives (operator new), what a task may co_await
// (await_transform), where its result goes (return_value) and what its end does (final_suspend:
// detail/task_return.hpp). The frame's state is detail/frame.hpp.

#include <concepts>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <functional>
#include <type_traits>
#include <utility>

#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/root.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/task_return.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/join.hpp"

#if defined(__clang__)
#define FJ_DETAIL_TRIVIAL_ABI [[clang::trivial_abi]]
#else
#define FJ_DETAIL_TRIVIAL_ABI
#endif

namespace fj {

template <class T>
class task;

// True for fj::task<T>.
template <class X>
inline constexpr bool is_task_v = false;
template <class T>
inline constexpr bool is_task_v<task<T>> = true;

namespace detail {

// Destroys a task that was never started. Out of line on purpose: the frame's address escapes into a call the
// compiler cannot see through, which rules out eliding the frame's allocation (HALO) and so keeps the worker
// check in operator new effective (promise_base).
[[gnu::noinline]] inline void destroy_unstarted(std::coroutine_handle<> h) noexcept { h.destroy(); }

template <class>
inline constexpr bool dependent_false = false;

// A promise of a forkjoin task (every one is a frame).
template <class P>
inline constexpr bool is_task_promise = std::derived_from<P, frame>;

// Base of the awaitables a task may co_await (fork, call, resume_on): the promise's await_transform passes
// these through and rejects everything else with a readable error.
struct runtime_awaitable {};

// What co_await of a rejected expression would have produced: a task's T, an awaiter's await_resume() result.
template <class A>
struct rejected_result {
  using type = void;
};
template <class T>
struct rejected_result<task<T>> {
  using type = T;
};
template <class A>
  requires requires(A& a) { a.await_resume(); }
struct rejected_result<A> {
  using type = decltype(std::declval<A&>().await_resume());
};
template <class A>
using rejected_result_t = typename rejected_result<A>::type;

// Stands in for an expression await_transform rejects (its static_assert has already failed): never resumed,
// so await_resume is only declared.
template <class R>
struct rejected_awaitable {
  static constexpr bool await_ready() noexcept { return true; }
  static constexpr void await_suspend(std::coroutine_handle<> /*h*/) noexcept {}
  R await_resume() const noexcept;
};

// What every promise has, whatever its result type.
class promise_base : public joinable_frame {
 public:
  // The compiler passes the coroutine's parameter copies (the object first, for a member function) to this
  // constructor, which is how the frame learns whether destroying them is a no-op (an empty pack: yes). A
  // reference parameter is seen as its referent, so it only ever makes the answer a conservative false.
  // It cannot throw, so a task's ramp has no landing pad and saves no registers. A task created outside a
  // worker fails in operator new instead (the thread's stack is segmented_stack::no_worker()); that
  // allocation is never elided, because task's destructor hands an unstarted frame to an opaque function (the
  // handle escapes, which rules out HALO).
  template <class... Params>
  explicit promise_base(Params&... /*params*/) noexcept {
    state.has_destructors = !(std::is_trivially_destructible_v<Params> && ...);
  }

  // Frames live on the current worker's segmented stack (paper III-A): a pointer bump, no allocator call.
  // Outside a worker tls_stack is segmented_stack::no_worker(), whose allocations throw
  // fj::not_in_worker_error: no test is needed here.
  static void* operator new(std::size_t size) { return tls_stack->allocate(size); }
  // Frames are freed in LIFO order by the worker that owns their stack.
  static void operator delete(void* p, std::size_t size) noexcept { tls_stack->deallocate(p, size); }

  static std::suspend_always initial_suspend() noexcept { return {}; }
  static final_awaiter final_suspend() noexcept { return {}; }

  // The task's own exception goes into its own first-exception slot (a child's may already be there: the
  // first wins). It travels to the parent when the frame finishes, after every child has returned.
  void unhandled_exception() noexcept { deliver_current_exception(handle()); }

  template <class A>
    requires std::derived_from<A, runtime_awaitable>
  A await_transform(A&& a) noexcept {
    return std::forward<A>(a);  // A is never a reference here (derived_from rejects them): a move
  }
  // See joinable_frame and join_awaiter (join.hpp) for why the two compilers await a join differently.
#if FJ_DETAIL_JOIN_BY_REFERENCE
  joinable_frame& await_transform(join_t) noexcept { return *this; }
#else
  join_awaiter await_transform(join_t) noexcept { return join_awaiter(this); }
#endif

  // Everything else is a compile error. The stand-in it returns has the members co_await needs, so that the
  // static_assert is the only error reported; it resumes with what the rejected expression would have given,
  // so that `long a = co_await t;` adds no error either.
  template <class A>
  rejected_awaitable<rejected_result_t<std::remove_cvref_t<A>>> await_transform(A&& /*a*/) noexcept {
    if constexpr (is_task_v<std::remove_cvref_t<A>>) {
      static_assert(dependent_false<A>,
                    "inside an fj::task you cannot co_await an fj::task directly: to run another task use "
                    "co_await fj::call(&result, fn, args...) (or fj::fork, then fj::join)");
    } else {
      static_assert(dependent_false<A>,
                    "inside an fj::task you can co_await only fj::fork(...), fj::call(...) or fj::join; "
                    "to run another task use co_await fj::call(&result, fn, args...)");
    }
    return {};
  }
};

template <class T>
class promise : public promise_base {
 public:
  using promise_base::promise_base;
  task<T> get_return_object() noexcept;

  template <class U = T>
    requires std::constructible_from<T, U&&> && std::assignable_from<T&, U&&>
  void return_value(U&& value) {
    // The analyzer does not see a coroutine's promise constructed in its frame, so it takes out_ for garbage.
    if (out_ != nullptr) [[likely]] {  // NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult)
      *out_ = std::forward<U>(value);
    } else if (state.kind == task_kind::root) {
      static_cast<root_result<T>*>(root)->value.emplace(std::forward<U>(value));
    }
  }

  void set_out(T* out) noexcept { out_ = out; }

 private:
  // Where the result goes: fj::fork and fj::call leave it in tls_next_out just before they create the task
  // (sync_wait sets null afterwards). Read here rather than stored by the fork after the child's creation,
  // because the fork would have to keep the pointer across that call, in a callee-saved register that every
  // resume of every task saves and restores (docs/experiments.md, "One callee-saved register").
  T* out_ = static_cast<T*>(tls_next_out);
};

template <>
class promise<void> : public promise_base {
 public:
  using promise_base::promise_base;
  task<void> get_return_object() noexcept;
  static void return_void() noexcept {}
};

}  // namespace detail

// The handle a task function returns. It owns the (not yet started) frame until fj::fork, fj::call or
// fj::sync_wait takes it; a task that is dropped unstarted is destroyed. With clang it is returned in a
// register despite its destructor (trivial_abi: it is one pointer, and moving it leaves null behind), which
// saves a store and a load on every fork and call.
template <class T>
class [[nodiscard]] FJ_DETAIL_TRIVIAL_ABI task {
  static_assert(
      !std::is_reference_v<T>,
      "fj::task<T&> is not supported: return a pointer or std::reference_wrapper, or write through out");
  static_assert(!std::is_const_v<T>, "fj::task<const T>: drop the const (the result is written through out)");
  static_assert(std::is_void_v<T> || (std::is_move_constructible_v<T> && std::is_move_assignable_v<T>),
                "fj::task<T>: T must be move-constructible and move-assignable (a child's result is assigned "
                "through out)");

 public:
  using value_type = T;
  using promise_type = detail::promise<T>;

  task(task&& other) noexcept : coroutine_(std::exchange(other.coroutine_, nullptr)) {}
  task& operator=(task&&) = delete;
  task(const task&) = delete;
  task& operator=(const task&) = delete;
  ~task() {
    if (coroutine_) detail::destroy_unstarted(coroutine_);
  }

  // Hands the frame over to whoever starts it.
  [[nodiscard]] std::coroutine_handle<promise_type> release() noexcept {
    return std::exchange(coroutine_, nullptr);
  }

 private:
  friend class detail::promise<T>;
  // The coroutine, not the promise: the ramp has its address at hand (frame_of says why it matters).
  explicit task(std::coroutine_handle<promise_type> h) noexcept : coroutine_(h) {}
  std::coroutine_handle<promise_type> coroutine_;
};

namespace detail {

// frame::handle() finds the coroutine from a frame pointer alone: that needs every promise to have the
// frame's alignment (promise<T> holds a T*, never a T; get_return_object checks each promise<T>).
static_assert(alignof(promise<void>) == alignof(frame));

template <class T>
task<T> promise<T>::get_return_object() noexcept {
  static_assert(alignof(promise<T>) == alignof(frame));
  return task<T>(std::coroutine_handle<promise<T>>::from_promise(*this));
}

inline task<void> promise<void>::get_return_object() noexcept {
  return task<void>(std::coroutine_handle<promise<void>>::from_promise(*this));
}

}  // namespace detail

// fn(args...) can be called and returns an fj::task.
template <class F, class... Args>
concept task_invocable =
    std::invocable<F, Args...> && is_task_v<std::remove_cvref_t<std::invoke_result_t<F, Args...>>>;

// The T of the fj::task<T> that fn(args...) returns.
template <class F, class... Args>
  requires task_invocable<F, Args...>
using task_result_t = typename std::remove_cvref_t<std::invoke_result_t<F, Args...>>::value_type;

}  // namespace fj
