#pragma once
// What a task's arguments leave its reference parameters bound to. A task is a coroutine: it keeps its
// reference parameters as references, so what they refer to must outlive the task, not only the call that
// created it. Two ways an argument fails that, both checked at compile time where fn's parameter types can be
// named:
// - fj::fork: a temporary of the caller's statement dies when the parent continues after the co_await, on a
//   thief possibly before the child has run (temporary_argument);
// - fj::fork, fj::call and fj::sync_wait: an argument that must be converted to bind a const T& or T&&
//   parameter (a string literal for a const std::string&) binds a temporary that the library's own call of fn
//   makes, which dies when that call returns, before the child or root has started (converted_argument).
// The language gives the parameter types without overload resolution only for a function, a function pointer
// or reference, a member function pointer, and a class with exactly one non-template operator() (a lambda
// whose parameters are spelled out). A generic lambda, an overloaded function object and fj::recursive (its
// operator() is a template; the conversion then happens inside it) are not checked. The rules' answers are
// tested in tests/unit/fork_arguments_test.cpp, the rejections in tests/compile_fail/.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

namespace fj::detail {

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
struct parameters_of {
  static constexpr bool known = false;
  using params = void;
};
template <class R, class... P, bool NE>
struct parameters_of<R(P...) noexcept(NE)> : known_parameters<P...> {};
template <class R, class... P, bool NE>
struct parameters_of<R (*)(P...) noexcept(NE)> : known_parameters<P...> {};
template <class R, class C, class... P, bool NE>
struct parameters_of<R (C::*)(P...) noexcept(NE)> : known_parameters<object_parameter<C>, P...> {};
template <class R, class C, class... P, bool NE>
struct parameters_of<R (C::*)(P...) const noexcept(NE)> : known_parameters<object_parameter<C>, P...> {};
template <class R, class C, class... P, bool NE>
struct parameters_of<R (C::*)(P...) & noexcept(NE)> : known_parameters<object_parameter<C>, P...> {};
template <class R, class C, class... P, bool NE>
struct parameters_of<R (C::*)(P...) const & noexcept(NE)> : known_parameters<object_parameter<C>, P...> {};
template <class R, class C, class... P, bool NE>
struct parameters_of<R (C::*)(P...) && noexcept(NE)> : known_parameters<object_parameter<C>, P...> {};
template <class R, class C, class... P, bool NE>
struct parameters_of<R (C::*)(P...) const && noexcept(NE)> : known_parameters<object_parameter<C>, P...> {};

// A function object: the parameters of its only operator(), without the object parameter (the object is fn).
template <class Params>
struct without_object {
  static constexpr bool known = false;
};
template <class C, class... P>
struct without_object<type_list<object_parameter<C>, P...>> : known_parameters<P...> {};

template <class F>
  requires std::is_class_v<F> && requires { &F::operator(); }
struct parameters_of<F> : without_object<typename parameters_of<decltype(&F::operator())>::params> {};

template <class T>
inline constexpr bool is_reference_wrapper = false;
template <class T>
inline constexpr bool is_reference_wrapper<std::reference_wrapper<T>> = true;

// Whether a parameter can bind a temporary: const T& or T&& (by value, the child's frame holds a copy; a
// non-const T& binds lvalues only).
template <class Param>
inline constexpr bool can_bind_temporary =
    std::is_reference_v<Param> &&
    !(std::is_lvalue_reference_v<Param> && !std::is_const_v<std::remove_reference_t<Param>>);

// Binding Param to an argument of forwarded type Arg needs a conversion that makes a temporary (a literal or
// a const char* for a const std::string&, an int for a const long&): the temporary is made by the library's
// own call of fn, and dies when that call returns, before any child has started. An argument of Param's type
// (or of a class derived from it), an lvalue or a caller's temporary, binds directly.
template <class Param, class Arg>
consteval bool converts_to_temporary() {
  using P = std::remove_cvref_t<Param>;
  using A = std::remove_cvref_t<Arg>;
  if constexpr (!can_bind_temporary<Param>) {
    return false;
  } else if constexpr (is_reference_wrapper<A>) {
    return converts_to_temporary<Param, typename A::type&>();  // unwrapped to the lvalue it refers to
  } else {
    return !std::is_same_v<P, A> && !std::is_base_of_v<P, A>;
  }
}

// Binding parameter Param to an argument of forwarded type Arg (an lvalue reference for an lvalue, else an
// rvalue) leaves the reference on a temporary: the argument itself is one (an rvalue: std::move of a
// variable looks the same here and is rejected too), or it is converted into one.
template <class Param, class Arg>
consteval bool binds_temporary() {
  using A = std::remove_cvref_t<Arg>;
  if constexpr (!can_bind_temporary<Param>) {
    return false;
  } else if constexpr (is_reference_wrapper<A>) {
    return binds_temporary<Param, typename A::type&>();
  } else {
    return !std::is_lvalue_reference_v<Arg> || converts_to_temporary<Param, Arg>();
  }
}

// A member function's object argument: an rvalue object dies with the statement, and the child's this with
// it.
template <class C, class Arg>
consteval bool binds_temporary_object() {
  using A = std::remove_cvref_t<Arg>;
  return !std::is_lvalue_reference_v<Arg> && (std::is_same_v<C, A> || std::is_base_of_v<C, A>);
}

// For each argument: whether a forked child (dangles) or any child (converted) would keep a reference to a
// temporary. The object of a member function is never converted (std::invoke binds it or dereferences it).
template <class Param, class Arg>
struct argument_check {
  static constexpr bool dangles = binds_temporary<Param, Arg>();
  static constexpr bool converted = converts_to_temporary<Param, Arg>();
};
template <class C, class Arg>
struct argument_check<object_parameter<C>, Arg> {
  static constexpr bool dangles = binds_temporary_object<C, Arg>();
  static constexpr bool converted = false;
};

enum class argument_rule : std::uint8_t {
  temporary,  // any temporary: fj::fork, whose child may outlive the caller's statement
  converted,  // a temporary made by a conversion: fj::call and fj::sync_wait, whose caller's temporaries last
};

template <argument_rule Rule, class Param, class Arg>
inline constexpr bool breaks_rule = Rule == argument_rule::temporary ? argument_check<Param, Arg>::dangles
                                                                     : argument_check<Param, Arg>::converted;

template <argument_rule Rule, class... P, class... A, std::size_t... I>
consteval std::size_t first_breaking(type_list<P...> /*params*/, type_list<A...> /*args*/,
                                     std::index_sequence<I...> /*pairs*/) {
  std::size_t found = 0;
  // || stops at the first one; found is 1-based.
  (void)((breaks_rule<Rule, typename type_at<I, P...>::type, typename type_at<I, A...>::type> &&
          (found = I + 1) != 0) ||
         ...);
  return found;
}

// The position (1 = the first argument after fn) of the first argument that breaks Rule for fn(args...), or
// 0. Extra parameters (defaults) and unknown signatures are not checked.
template <argument_rule Rule, class F, class... Args>
consteval std::size_t first_argument_breaking() {
  using signature = parameters_of<std::remove_cvref_t<F>>;
  if constexpr (!signature::known) {
    return 0;
  } else {
    return []<class... P>(type_list<P...> params) {
      constexpr std::size_t n = sizeof...(P) < sizeof...(Args) ? sizeof...(P) : sizeof...(Args);
      return first_breaking<Rule>(params, type_list<Args...>{}, std::make_index_sequence<n>{});
    }(typename signature::params{});
  }
}

// The first argument that a forked fn(args...) would keep a reference to a temporary of (fj::fork), or 0.
template <class F, class... Args>
consteval std::size_t temporary_argument() {
  return first_argument_breaking<argument_rule::temporary, F, Args...>();
}

// The first argument that fn(args...) would bind to a reference parameter only through a conversion, or 0:
// its temporary dies inside the library's call of fn, before the child or root starts (fj::call,
// fj::sync_wait).
template <class F, class... Args>
consteval std::size_t converted_argument() {
  return first_argument_breaking<argument_rule::converted, F, Args...>();
}

}  // namespace fj::detail
