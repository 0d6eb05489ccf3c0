#pragma once
// fj::scope: fork-join for plain functions, in the manner of cilk_spawn/cilk_sync and tbb::task_group.
//
//   long fib(int n) {
//     if (n < 2) return n;
//     long a = 0;
//     fj::scope s;
//     s.spawn(&a, fib, n - 1);  // a thief may take this child; we go on with the rest
//     long const b = fib(n - 2);
//     s.sync();                 // wait for the children; a's value is ready
//     return a + b;
//   }
//
// Child stealing: spawn puts the call in the worker's deque and returns; an idle worker may take it, else the
// sync runs it here. A spawn allocates nothing (the record is a pointer bump on the worker's segmented
// stack); the call's arguments are kept in it until the call returns, so temporaries passed to spawn are
// safe. A sync waits for every child spawned since the last one and rethrows the first exception a child
// threw (the others are counted in the pool's statistics as dropped); the destructor syncs too. While a
// stolen child runs, the sync never blocks: it takes back work of that child from the thief
// (docs/protocols/spawn.md).
//
// Where a scope runs: opened on a worker of any pool (inside a task, a spawned child, or a plain function
// sync_wait runs), it spawns onto that worker. Opened on an ordinary thread, each child becomes a root task
// of the pool given to the constructor, or of fj::default_pool(), and the sync blocks the thread until they
// are done. On a unit_pool, and everywhere when the program is built with FJ_SERIAL_ELISION=1, spawn runs the
// call at once (the serial program's order; the exceptions still wait for the sync).
//
// Rules (each a fj::scope_error, docs/protocols/spawn.md "Where a scope may be used"): spawn and sync only
// from the code that opened the scope, on its thread, not from a child, and not while a scope opened after it
// is still open. A scope in a task must not stay open across a co_await that may move the task to another
// worker (sync first): there spawn and sync throw fj::scope_error, and the destructor stops the process with
// a message.

#include <atomic>
#include <concepts>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "forkjoin/default_pool.hpp"
#include "forkjoin/detail/arguments.hpp"
#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/leapfrog.hpp"
#include "forkjoin/detail/pool_core.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/spawn_record.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/sync_wait.hpp"
#include "forkjoin/task.hpp"

#ifndef FJ_SERIAL_ELISION
#define FJ_SERIAL_ELISION 0
#endif

namespace fj {

namespace detail {

inline constexpr bool serial_elision = FJ_SERIAL_ELISION != 0;

// What a spawn keeps of argument Arg (as spawn's forwarding reference deduced it) for parameter Param: a
// reference to the caller's object where an lvalue meets an lvalue-reference parameter (as a call would bind
// it), and otherwise a copy made at the spawn, or the rvalue moved in (as a by-value parameter, or a const&
// bound to a temporary, would have it when the call is made at once). So `for (...) s.spawn(f, i)` passes
// each child the i of its spawn, and a temporary lives until the call returns.
template <class Param, class Arg>
struct kept_argument {
  using type = std::conditional_t<std::is_lvalue_reference_v<Param> && std::is_lvalue_reference_v<Arg>, Arg,
                                  std::decay_t<Arg>>;
};
// A member function's object: an lvalue is the caller's object, as std::invoke would use it.
template <class C, class Arg>
struct kept_argument<object_parameter<C>, Arg> {
  using type = std::conditional_t<std::is_lvalue_reference_v<Arg>, Arg, std::decay_t<Arg>>;
};
template <class Param, class Arg>
using kept_argument_t = typename kept_argument<Param, Arg>::type;

// The kept types of Args for callable F. Where F's parameters cannot be named (a generic lambda, an
// overloaded function object; detail/arguments.hpp), or past them, every argument is copied, as std::thread
// does: pass std::ref(x) for a reference.
template <class F, class... Args>
struct kept_arguments {
  using type = std::tuple<std::decay_t<F>, std::decay_t<Args>...>;
};
template <class F, class... Args>
  requires parameters_of<std::remove_cvref_t<F>>::known
struct kept_arguments<F, Args...> {
  template <std::size_t I, class Arg, class... P>
  static auto kept_one(type_list<P...> /*params*/) {
    if constexpr (I < sizeof...(P)) {
      return std::type_identity<kept_argument_t<typename type_at<I, P...>::type, Arg>>{};
    } else {
      return std::type_identity<std::decay_t<Arg>>{};
    }
  }
  template <std::size_t... I>
  static auto all(std::index_sequence<I...> /*indices*/) {
    using params = typename parameters_of<std::remove_cvref_t<F>>::params;
    return std::type_identity<
        std::tuple<std::decay_t<F>, typename decltype(kept_one<I, Args>(params{}))::type...>>{};
  }
  using type = typename decltype(all(std::index_sequence_for<Args...>{}))::type;
};

// Whether the call can be made with the arguments as kept (references as lvalues, values as rvalues).
template <class Tuple>
inline constexpr bool kept_invocable = false;
template <class... Kept>
inline constexpr bool kept_invocable<std::tuple<Kept...>> = std::is_invocable_v<Kept&&...>;

// Applies the kept call.
template <class Tuple>
decltype(auto) invoke_kept(Tuple&& call) {
  return std::apply(
      [](auto&&... a) -> decltype(auto) { return std::invoke(std::forward<decltype(a)>(a)...); },
      std::forward<Tuple>(call));
}

// A spawned call: the function object (copied, as std::thread does) and the arguments as kept_arguments
// keeps them, passed on as kept: references as lvalues, kept values as rvalues. Out is void or the result's
// target.
template <class Out, class F, class... Args>
struct record_of final : spawn_record {
  template <class G, class... A>
  record_of(scope_state* s, spawn_record* previous, Out* target, G&& fn, A&&... args)
      : spawn_record(&run_it, s, previous),
        out(target),
        call(std::forward<G>(fn), std::forward<A>(args)...) {}

  Out* out;
  typename kept_arguments<F, Args...>::type call;

  static void run_it(spawn_record* base) noexcept {
    auto* const self = static_cast<record_of*>(base);
    try {
      if constexpr (std::is_void_v<Out>) {
        invoke_kept(std::move(self->call));
      } else {
        *self->out = invoke_kept(std::move(self->call));
      }
    } catch (...) {
      self->scope->capture(std::current_exception());
    }
    // The call and its arguments end here; the base's fields stay readable until the sync frees the memory.
    self->call.~tuple();
  }
};

// Runs a call at once, passing its exception to the scope (serial elision, a pool without thieves). No scope
// is open meanwhile: the call is the scope's child and may not spawn into it or sync it.
template <class Out, class F, class... Args>
void run_now(scope_state& s, Out* out, F&& fn, Args&&... args) noexcept {
  tls_scope = nullptr;
  try {
    // Kept as a queued child's would be, so that the call sees the same arguments in every mode.
    typename kept_arguments<F, Args...>::type call(std::forward<F>(fn), std::forward<Args>(args)...);
    if constexpr (std::is_void_v<Out>) {
      invoke_kept(std::move(call));
    } else {
      *out = invoke_kept(std::move(call));
    }
  } catch (...) {
    s.capture(std::current_exception());
  }
  tls_scope = &s;
}

// One child of a scope opened on an ordinary thread: a root task of the scope's pool that runs the record.
struct external_child {
  started_root<void> root;
  external_child* older = nullptr;
  spawn_record* record = nullptr;
  std::unique_ptr<std::byte[]> storage;
};

inline task<void> run_external_record(spawn_record* r) {
  r->run(r);
  co_return;
}

}  // namespace detail

class scope : private detail::scope_state {
 public:
  // On an ordinary thread, children run on fj::default_pool().
  scope() noexcept { detail::tls_scope = this; }
  // On an ordinary thread, children run on `pool`; on a worker they spawn onto that worker, whatever `pool`.
  template <scheduler Pool>
  explicit scope(Pool& pool) noexcept : external_pool_(&pool.core()) {
    detail::tls_scope = this;
  }

  scope(const scope&) = delete;
  scope& operator=(const scope&) = delete;
  scope(scope&&) = delete;
  scope& operator=(scope&&) = delete;

  // Syncs. Rethrows the first exception of a child, unless an exception is already in flight: then the
  // children's exceptions are dropped (counted), as a destructor may not throw while the stack unwinds.
  [[gnu::always_inline]] ~scope() noexcept(false) {
    if (detail::tls_scope != this) [[unlikely]]
      misuse_fatal();
    finish_children();
    detail::tls_scope = outer_;
    if (exception_) [[unlikely]]
      end_with_exception();
  }

  // spawn(&out, fn, args...): runs fn(args...) as a child; its result is assigned to *out by the time the
  // next sync returns. spawn(fn, args...): the same, discarding any result. Throws fj::scope_error when the
  // rules are broken, std::bad_alloc or fj::stack_budget_error when the record cannot be made.
  template <class First, class... Rest>
  [[gnu::always_inline]] void spawn(First&& first, Rest&&... rest) {
    if constexpr (std::is_invocable_v<First, Rest...>) {
      spawn_call<void>(nullptr, std::forward<First>(first), std::forward<Rest>(rest)...);
    } else if constexpr (std::is_pointer_v<std::remove_cvref_t<First>> && sizeof...(Rest) > 0) {
      spawn_with_out(first, std::forward<Rest>(rest)...);
    } else {
      static_assert(
          std::is_invocable_v<First, Rest...>,
          "fj::scope::spawn(fn, args...) or spawn(&out, fn, args...): fn(args...) must be callable");
    }
  }

  // Waits for every child spawned since the last sync; rethrows the first exception one of them threw.
  [[gnu::always_inline]] void sync() {
    if (detail::tls_scope != this) [[unlikely]]
      misuse_throw("sync");
    finish_children();
    if (exception_) [[unlikely]]
      rethrow_first();
  }

 private:
  template <class Out, class F, class... Args>
  [[gnu::always_inline]] void spawn_with_out(Out* out, F&& fn, Args&&... args) {
    static_assert(std::is_invocable_v<F, Args...>,
                  "fj::scope::spawn(&out, fn, args...): fn(args...) must be callable");
    if constexpr (std::is_invocable_v<F, Args...>) {
      static_assert(std::is_assignable_v<Out&, std::invoke_result_t<F, Args...>>,
                    "fj::scope::spawn(&out, fn, args...): fn's result must be assignable to out");
      spawn_call<Out>(out, std::forward<F>(fn), std::forward<Args>(args)...);
    }
  }

  template <class Out, class F, class... Args>
  [[gnu::always_inline]] void spawn_call(Out* out, F&& fn, Args&&... args) {
    static_assert(
        detail::kept_invocable<typename detail::kept_arguments<F, Args...>::type>,
        "fj::scope::spawn: fn cannot be called with its arguments as spawn keeps them: an lvalue is "
        "copied unless it meets an lvalue-reference parameter that spawn can see (not a generic "
        "lambda's); pass std::ref(x) to share an object");
    if (detail::tls_scope != this) [[unlikely]]
      misuse_throw("spawn");
    if constexpr (detail::serial_elision) {
      detail::run_now(*this, out, std::forward<F>(fn), std::forward<Args>(args)...);
    } else {
      if (!spawner_.bound()) [[unlikely]] {
        spawn_elsewhere<Out, F, Args...>(out, std::forward<F>(fn), std::forward<Args>(args)...);
        return;
      }
      using record = detail::record_of<Out, F, Args...>;
      static_assert(alignof(record) <= detail::k_frame_align,
                    "fj::scope::spawn: an argument is over-aligned for the segmented stack");
      void* const memory = stack_->allocate(sizeof(record));
      record* r = nullptr;
      if constexpr (std::is_nothrow_constructible_v<record, scope_state*, detail::spawn_record*, Out*, F,
                                                    Args...>) {
        r = ::new (memory) record(this, newest_, out, std::forward<F>(fn), std::forward<Args>(args)...);
      } else {
        try {
          r = ::new (memory) record(this, newest_, out, std::forward<F>(fn), std::forward<Args>(args)...);
        } catch (...) {
          stack_->deallocate(memory, sizeof(record));
          throw;
        }
      }
      if constexpr (detail::k_stack_checks) r->depth = detail::tls_spawn_depth + 1;
      if (!spawner_.try_push(r)) [[unlikely]] {
        run_unqueued(r);  // the deque could not grow: run the child now
        return;
      }
      newest_ = r;
    }
  }

  // A spawn on an ordinary thread (a root task of the pool) or on a pool without thieves (run now).
  template <class Out, class F, class... Args>
  [[gnu::noinline]] void spawn_elsewhere(Out* out, F&& fn, Args&&... args) {
    if (detail::tls_worker != nullptr) {
      detail::run_now(*this, out, std::forward<F>(fn), std::forward<Args>(args)...);
      return;
    }
    using record = detail::record_of<Out, F, Args...>;
    auto child = std::make_unique<detail::external_child>();
    child->storage = std::make_unique<std::byte[]>(sizeof(record));
    auto* const r = ::new (child->storage.get())
        record(this, newest_, out, std::forward<F>(fn), std::forward<Args>(args)...);
    if (external_pool_ == nullptr) external_pool_ = &default_pool().core();
    try {
      child->root.start(*external_pool_, detail::run_external_record, static_cast<detail::spawn_record*>(r));
    } catch (...) {
      r->~record();
      throw;
    }
    child->older = external_;
    external_ = child.release();
    newest_ = r;
  }

  [[gnu::noinline]] void run_unqueued(detail::spawn_record* r) noexcept {
    detail::tls_scope = nullptr;  // as at a sync: the child may not spawn into this scope
    run_here(r);
    detail::tls_scope = this;
    stack_->deallocate_last(r);
  }

  // Runs the children still in this worker's deque, waits for those thieves took, frees the records. No
  // scope is open on the thread meanwhile, so a child run here cannot spawn into this scope or an outer one.
  [[gnu::always_inline]] void finish_children() {
    if (newest_ == nullptr) return;
    if (!spawner_.bound()) [[unlikely]] {
      finish_external();
      return;
    }
    detail::tls_scope = nullptr;
    detail::spawn_record* r = newest_;
    do {
      // Our records are the newest items of the deque (a child's own spawns are synced before it returns),
      // so the item popped is r; checked builds check it.
      if constexpr (detail::k_stack_checks) {
        std::optional<detail::spawn_record*> const popped = spawner_.pop();
        if (!popped) break;  // thieves took r and the older ones
        if (*popped != r) detail::internal_error("a scope's sync popped another scope's child");
      } else {
        if (!spawner_.pop_discard()) break;  // thieves took r and the older ones
      }
      detail::spawn_record* const older = r->older;
      run_here(r);
      // The newest allocation on our stack again: r's children freed theirs.
      stack_->deallocate_last(r);
      r = older;
    } while (r != nullptr);
    if (r != nullptr) [[unlikely]] {
      newest_ = r;
      finish_stolen();
    }
    newest_ = nullptr;
    detail::tls_scope = this;
  }

  [[gnu::always_inline]] static void run_here(detail::spawn_record* r) noexcept {
    if constexpr (detail::k_stack_checks) {
      std::uint32_t const saved_depth = detail::tls_spawn_depth;
      detail::tls_spawn_depth = r->depth;
      r->run(r);
      detail::tls_spawn_depth = saved_depth;
    } else {
      r->run(r);
    }
  }

  // The records from newest_ on were taken by thieves: wait for them, then free them.
  [[gnu::noinline]] void finish_stolen() {
    for (detail::spawn_record* r = newest_; r != nullptr; r = r->older) ++stolen_;
    detail::wait_for_stolen(*this);
    // Newest first: the reverse order of allocation, as the stack requires.
    for (detail::spawn_record* r = newest_; r != nullptr;) {
      detail::spawn_record* const older = r->older;
      stack_->deallocate_last(r);
      r = older;
    }
    stolen_ = 0;
    // relaxed: every thief that counted has finished with this scope (the acquire in wait_for_stolen).
    stolen_done_.store(0, std::memory_order_relaxed);  // model: spawn.stolen_done.reset
  }

  [[gnu::noinline]] void finish_external() noexcept {
    while (external_ != nullptr) {
      std::unique_ptr<detail::external_child> child(external_);
      external_ = child->older;
      child->root.wait();  // never throws: the record passes the call's exception to the scope
    }
    newest_ = nullptr;
  }

  // The destructor found a child's exception. With no other exception in flight it is thrown; during
  // unwinding (or inside a destructor called by it) throwing would terminate, so it is dropped and counted.
  [[gnu::cold, gnu::noinline]] void end_with_exception() {
    exception_claimed_.store(0, std::memory_order_relaxed);  // model: spawn.exception.reset.dtor
    std::exception_ptr e = std::exchange(exception_, nullptr);
    if (std::uncaught_exceptions() == 0) std::rethrow_exception(std::move(e));
    if (detail::worker_context* w = detail::tls_worker) {
      detail::worker_counters::bump(w->counters.exceptions_dropped);
    } else if (external_pool_ != nullptr) {
      external_pool_->count_dropped_exception();
    }
  }

  [[gnu::cold, gnu::noinline]] void rethrow_first() {
    exception_claimed_.store(0, std::memory_order_relaxed);  // model: spawn.exception.reset.sync
    std::rethrow_exception(std::exchange(exception_, nullptr));
  }

  // A scope opened on a worker whose task went on on another thread (a co_await in between) cannot reach its
  // children: they are in the first worker's deque and on its stack.
  [[nodiscard]] bool moved() const noexcept { return spawner_ != detail::tls_spawner; }

  // On another worker this may be a child that thieves took, or the scope's own task moved by a co_await:
  // both get the error, and in the second case the scope's destructor then stops the process.
  [[noreturn, gnu::cold, gnu::noinline]] void misuse_throw(const char* operation) const {
    throw scope_error(std::string(operation) +
                      " called from a child of the scope, from another thread, or while a scope opened after "
                      "this one is still open");
  }

  [[noreturn, gnu::cold, gnu::noinline]] void misuse_fatal() const noexcept {
    detail::fatal(moved()
                      ? "fj::scope: a scope in a task stayed open across a co_await that moved the task to "
                        "another worker (sync before the co_await)"
                      : "fj::scope: a scope was destroyed while a scope opened after it was still open, or "
                        "on another thread");
  }

  detail::segmented_stack* stack_ = detail::tls_stack;  // where the records are allocated
  detail::pool_core* external_pool_ = nullptr;
  detail::external_child* external_ = nullptr;
};

}  // namespace fj
