#pragma once
// fj::parallel_invoke(f, g, ...): calls every function, possibly in parallel, and returns when all have
// returned (tbb::parallel_invoke; rayon's join for two). The last function runs on the calling thread, the
// others are spawned (fj::scope). Returns nothing when every function returns void, and otherwise a
// std::tuple of their results in argument order, with std::monostate for a function returning void:
//
//   auto [left, right] = fj::parallel_invoke([&] { return sum(lo, mid); }, [&] { return sum(mid, hi); });
//
// Exceptions as fj::scope: the first one thrown is rethrown once all have returned, the others are counted as
// dropped. From an ordinary thread the spawned functions run on fj::default_pool().

#include <cstddef>
#include <functional>
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
  {
    scope s;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      constexpr std::size_t last = sizeof...(F) - 1;
      // Spawn all but the last, oldest first, so that thieves take the first ones.
      ((I != last ? s.spawn([&] { detail::invoke_into(std::get<I>(functions), std::get<I>(results)); })
                  : void()),
       ...);
      detail::invoke_into(std::get<last>(functions), std::get<last>(results));
    }(std::index_sequence_for<F...>{});
    s.sync();
  }
  if constexpr (!(std::is_void_v<std::invoke_result_t<F&>> && ...)) return results;
}

}  // namespace fj
