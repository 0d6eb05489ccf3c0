#pragma once
// fj::parallel_invoke(f, g, ...): calls every function, possibly in parallel, and returns when all have
// returned (tbb::parallel_invoke; rayon's join for two). The last function runs on the calling thread, the
// others are spawned. Returns nothing when every function returns void, and otherwise a std::tuple of their
// results in argument order, with std::monostate for a function returning void:
//
//   auto [left, right] = fj::parallel_invoke([&] { return sum(lo, mid); }, [&] { return sum(mid, hi); });
//
// Exceptions as fj::scope: the first one caught is rethrown once all have returned, the others are counted as
// dropped. From an ordinary thread the spawned functions run on fj::default_pool().
//
// On a worker of a pool with thieves it is fj::scope's protocol (docs/protocols/spawn.md) with two savings
// that a scope cannot make, because here every child's type is known where it is popped back: the records
// live in this function's frame (it returns only after every child has), and a child popped back is called
// directly, not through its record's function pointer.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "forkjoin/scope.hpp"

namespace fj {

namespace detail {

// A function's result as parallel_invoke stores it: void becomes std::monostate.
template <class F>
using invoke_slot_t = std::conditional_t<std::is_void_v<std::invoke_result_t<F&>>, std::monostate,
                                         std::remove_cvref_t<std::invoke_result_t<F&>>>;

template <class F, class Slot>
void invoke_into(F& f, Slot& slot) {
  if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
    std::invoke(f);
  } else {
    slot = std::invoke(f);
  }
}

// One spawned function of parallel_invoke on a worker: a record in parallel_invoke's frame. Thieves run it
// through spawn_record::run; the owner, which knows its type, calls call() directly.
template <class F, class Slot>
struct invoke_record final : spawn_record {
  invoke_record(scope_state* s, F& f, Slot& slot) noexcept
      : spawn_record(&run_it, s, nullptr), fn(&f), out(&slot) {}

  F* fn;
  Slot* out;

  // The function's exception goes to the state, as a spawned call's does.
  [[gnu::always_inline]] void call() noexcept {
    try {
      invoke_into(*fn, *out);
    } catch (...) {
      scope->capture(std::current_exception());
    }
  }
  // Called by the owner on a record it popped back.
  [[gnu::always_inline]] void call_here() noexcept {
    if constexpr (k_stack_checks) {
      std::uint32_t const saved_depth = tls_spawn_depth;
      tls_spawn_depth = depth;
      call();
      tls_spawn_depth = saved_depth;
    } else {
      call();
    }
  }
  static void run_it(spawn_record* base) noexcept { static_cast<invoke_record*>(base)->call(); }
};

// parallel_invoke on a worker: functions I... are spawned, the last one is called here. Without `queue` (a
// pool without thieves, serial elision) each is called at its spawn, in the serial order.
template <class Functions, class Results, std::size_t... I>
void invoke_on_worker(Functions& fns, Results& results, std::index_sequence<I...> /*spawned*/, bool queue) {
  constexpr std::size_t spawned = sizeof...(I);
  constexpr std::size_t last = spawned;
  scope_state state;
  // No scope is open meanwhile: the functions may not spawn into one opened before (its children would land
  // above ours in the deque), as in the children of a scope.
  tls_scope = nullptr;
  // Records cannot be moved (they hold an atomic), so each is made in place at its push.
  std::tuple<std::optional<invoke_record<std::remove_reference_t<std::tuple_element_t<I, Functions>>,
                                         std::tuple_element_t<I, Results>>>...>
      records;
  // Push oldest first, so that thieves take the first functions. A push that fails (the deque could not
  // grow) runs that function and the later ones here, unqueued.
  std::size_t pushed = 0;
  auto push = [&]<std::size_t J>() noexcept {
    auto& r = std::get<J>(records).emplace(&state, std::get<J>(fns), std::get<J>(results));
    if constexpr (J > 0) r.older = &*std::get<J - 1>(records);
    if constexpr (k_stack_checks) r.depth = tls_spawn_depth + 1;
    if (queue && pushed == J && state.spawner_.try_push(&r)) [[likely]] {
      pushed = J + 1;
    } else {
      r.call_here();
    }
  };
  (push.template operator()<I>(), ...);
  try {
    invoke_into(std::get<last>(fns), std::get<last>(results));
  } catch (...) {
    state.capture(std::current_exception());
  }
  // Pop back newest first: each pop returns our newest record still queued (what the functions spawned is
  // synced before they return). A pop that finds nothing means thieves took that record and the older ones.
  auto pop = [&]<std::size_t J>() noexcept -> bool {
    if (J >= pushed) return true;  // ran at its push
    auto& r = *std::get<J>(records);
    if constexpr (k_stack_checks) {
      std::optional<spawn_record*> const popped = state.spawner_.pop();
      if (popped && *popped != &r) internal_error("parallel_invoke popped another scope's child");
      if (!popped) {
        state.newest_ = &r;
        state.stolen_ = static_cast<std::uint32_t>(J + 1);
        return false;
      }
    } else if (!state.spawner_.pop_discard()) {
      state.newest_ = &r;
      state.stolen_ = static_cast<std::uint32_t>(J + 1);
      return false;
    }
    r.call_here();
    return true;
  };
  (void)(pop.template operator()<spawned - 1 - I>() && ...);
  if (state.newest_ != nullptr) [[unlikely]]
    wait_for_stolen(state);
  tls_scope = state.outer_;
  if (state.exception_) [[unlikely]]
    std::rethrow_exception(state.exception_);
}

// parallel_invoke on an ordinary thread: through an fj::scope, whose children are roots of the default pool
// (or, with serial elision, calls). Out of line, so that the worker's path keeps few registers.
template <class Functions, class Results, std::size_t... I>
[[gnu::noinline]] void invoke_with_scope(Functions& functions, Results& results,
                                         std::index_sequence<I...> /*all*/) {
  constexpr std::size_t last = sizeof...(I) - 1;
  fj::scope s;
  // Spawn all but the last, oldest first, so that thieves take the first ones.
  ((I != last ? s.spawn([&] { invoke_into(std::get<I>(functions), std::get<I>(results)); }) : void()), ...);
  invoke_into(std::get<last>(functions), std::get<last>(results));
  s.sync();
}

}  // namespace detail

template <class... F>
  requires(sizeof...(F) >= 1 && (std::is_invocable_v<F&> && ...))
auto parallel_invoke(F&&... fs) {
  static_assert(((std::is_void_v<std::invoke_result_t<F&>> ||
                  std::is_default_constructible_v<detail::invoke_slot_t<F>>) &&
                 ...),
                "fj::parallel_invoke: a result type must be default-constructible (it is assigned when the "
                "function returns)");
  std::tuple<detail::invoke_slot_t<F>...> results;
  auto functions = std::forward_as_tuple(std::forward<F>(fs)...);
  if constexpr (sizeof...(F) == 1) {
    detail::invoke_into(std::get<0>(functions), std::get<0>(results));
  } else if (detail::tls_worker != nullptr) {
    detail::invoke_on_worker(functions, results, std::make_index_sequence<sizeof...(F) - 1>{},
                             !detail::serial_elision && detail::tls_spawner.bound());
  } else {
    detail::invoke_with_scope(functions, results, std::index_sequence_for<F...>{});
  }
  if constexpr (!(std::is_void_v<std::invoke_result_t<F&>> && ...)) return results;
}

}  // namespace fj
