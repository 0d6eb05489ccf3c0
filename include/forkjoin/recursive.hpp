#pragma once
// fj::recursive: lets a lambda call itself in plain C++20. The lambda receives the wrapper as its first
// parameter and forks or calls through it:
//   auto fib = fj::recursive([](auto self, int n) -> fj::task<long> {
//     ...
//     co_await fj::fork(&a, self, n - 1);
//     ...
//   });
//   long r = fj::sync_wait(pool, fib, 30);
// Prefer lambdas without captures: a child's frame refers to the lambda object, which must outlive the child.
// Its operator() is a template, so fj::fork, fj::call and fj::sync_wait cannot see the lambda's parameters
// and do not check its arguments (detail/arguments.hpp): give a const std::string& parameter a std::string
// that outlives the child, not a literal, whose conversion happens inside operator() and dies there.

#include <functional>
#include <type_traits>
#include <utility>

namespace fj {

template <class F>
class recursive {
 public:
  constexpr explicit recursive(F fn) noexcept(std::is_nothrow_move_constructible_v<F>) : fn_(std::move(fn)) {}

  // The return type is spelled out (not deduced) so that the lambda's body can ask whether `self` is
  // invocable while this operator is being instantiated. The lambda needs an explicit return type for the
  // same reason.
  template <class... Args>
  constexpr auto operator()(Args&&... args) const
      -> std::invoke_result_t<const F&, const recursive&, Args&&...> {
    return std::invoke(fn_, *this, std::forward<Args>(args)...);
  }

 private:
  F fn_;
};

}  // namespace fj
