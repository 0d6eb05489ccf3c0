// What fj::fork, fj::call and fj::sync_wait accept as arguments for a task's reference parameters, and what
// they reject at compile time (include/forkjoin/detail/arguments.hpp; the rejections themselves are
// tests/compile_fail/fork_*, call_converted_* and sync_wait_converted_*: here the rules' answers, and the
// allowed cases).

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

fj::task<std::size_t> length_of(const std::string& s) { co_return s.size(); }
fj::task<std::size_t> length_by_value(std::string s) { co_return s.size(); }
fj::task<std::size_t> take_size(std::vector<int>&& v) {
  std::vector<int> const taken = std::move(v);
  co_return taken.size();
}
fj::task<void> append(std::string& s, char c) {
  s.push_back(c);
  co_return;
}

struct counter {
  std::size_t base = 0;
  fj::task<std::size_t> plus(const std::string& s) const { co_return base + s.size(); }
};

using fj::detail::temporary_argument;
using length_fn = decltype(length_of)&;

// The rule's answer: the position of the first argument left referring to a temporary, 0 for none.
static_assert(temporary_argument<length_fn, std::string>() == 1, "a temporary string to const std::string&");
static_assert(temporary_argument<length_fn, std::string&>() == 0, "an lvalue string");
static_assert(temporary_argument<length_fn, const std::string&>() == 0, "a const lvalue string");
static_assert(temporary_argument<length_fn, const char (&)[4]>() == 1, "a literal converted to a temporary");
static_assert(temporary_argument<length_fn, std::reference_wrapper<const std::string>>() == 0,
              "std::cref refers to an lvalue");
static_assert(temporary_argument<decltype(length_by_value)&, std::string>() == 0, "by value: a copy");
static_assert(temporary_argument<decltype(&take_size), std::vector<int>>() == 1, "an rvalue to T&&");
static_assert(temporary_argument<decltype(append)&, std::string&, char>() == 0, "T& binds lvalues only");
static_assert(temporary_argument<decltype(&counter::plus), counter, std::string&>() == 1,
              "a temporary object of a member function");
static_assert(temporary_argument<decltype(&counter::plus), counter*, std::string>() == 2,
              "a member function's temporary argument, counted after the object");
static_assert(temporary_argument<decltype(&counter::plus), counter&, std::string&>() == 0, "lvalues");
static_assert(temporary_argument<decltype([](const std::string&, int) -> fj::task<int> { co_return 0; }),
                                 std::string&, int>() == 0,
              "a lambda's int by value");
// Generic lambdas and fj::recursive have a template operator(): their parameters cannot be named.
static_assert(
    temporary_argument<decltype([](const auto&) -> fj::task<int> { co_return 0; }), std::string>() == 0,
    "not inspected");

// fj::call and fj::sync_wait take the caller's temporaries (they live until the child or root has finished),
// but not one that a conversion makes inside the library's call of fn: the position of the first such
// argument.
using fj::detail::converted_argument;
static_assert(converted_argument<length_fn, std::string>() == 0, "the caller's temporary");
static_assert(converted_argument<length_fn, std::string&>() == 0, "an lvalue");
static_assert(converted_argument<length_fn, const char (&)[3]>() == 1, "a literal converted inside the call");
static_assert(converted_argument<length_fn, const char*&>() == 1, "a const char* converted inside the call");
static_assert(converted_argument<length_fn, std::reference_wrapper<const std::string>>() == 0, "std::cref");
static_assert(converted_argument<decltype(length_by_value)&, const char (&)[3]>() == 0, "by value: a copy");
static_assert(converted_argument<decltype(&take_size), std::vector<int>>() == 0, "the caller's rvalue");
static_assert(converted_argument<decltype(&counter::plus), counter, std::string>() == 0,
              "a temporary object and argument of the caller");
static_assert(converted_argument<decltype(&counter::plus), counter&, const char (&)[2]>() == 2,
              "a member function's converted argument, counted after the object");
static_assert(converted_argument<fj::task<long> (*)(const long&), int&>() == 1, "an int for a const long&");
static_assert(
    converted_argument<decltype([](const std::string&) -> fj::task<int> { co_return 0; }), const char*>() ==
        1,
    "a lambda with spelled-out parameters");

TEST(ForkArguments, LvaluesBindToReferenceParametersOfForkedChildren) {
  fj::busy_pool pool(2);
  auto parent = []() -> fj::task<std::size_t> {
    std::string const a = "abc";
    std::string const b = "de";
    counter const c{10};
    auto length = [](const std::string& s) -> fj::task<std::size_t> { co_return s.size(); };
    std::size_t r[4] = {};
    co_await fj::fork(&r[0], length_of, a);
    co_await fj::fork(&r[1], length, b);
    co_await fj::fork(&r[2], &counter::plus, c, a);
    co_await fj::fork(&r[3], length_of, std::cref(b));
    co_await fj::join;
    co_return r[0] + r[1] + r[2] + r[3];
  };
  EXPECT_EQ(fj::sync_wait(pool, parent), 3U + 2U + 13U + 2U);
}

TEST(ForkArguments, TemporariesGoToByValueParametersOfForkedChildren) {
  fj::busy_pool pool(2);
  auto parent = [](std::string s) -> fj::task<std::size_t> {
    std::size_t left = 0;
    std::size_t right = 0;
    co_await fj::fork(&left, length_by_value, s.substr(0, 2));
    co_await fj::fork(&right, length_by_value, "literal");
    co_await fj::join;
    co_return left + right;
  };
  EXPECT_EQ(fj::sync_wait(pool, parent, std::string("abcdef")), 2U + 7U);
}

TEST(ForkArguments, TemporariesBindToReferenceParametersOfCalledChildren) {
  fj::busy_pool pool(2);
  auto parent = [](std::string s) -> fj::task<std::size_t> {
    std::size_t r[4] = {};
    co_await fj::call(&r[0], length_of, s.substr(0, 3));
    co_await fj::call(&r[1], length_of, std::string("xy"));
    co_await fj::call(&r[2], take_size, std::vector<int>(5, 0));
    co_await fj::call(&r[3], &counter::plus, counter{100}, s + "!");
    co_await fj::join;
    co_return r[0] + r[1] + r[2] + r[3];
  };
  EXPECT_EQ(fj::sync_wait(pool, parent, std::string("abcdef")), 3U + 2U + 5U + 107U);
}

TEST(ForkArguments, SyncWaitKeepsItsCallersTemporariesUntilTheTaskEnds) {
  fj::busy_pool pool(2);
  std::string const kept = "abcd";
  EXPECT_EQ(fj::sync_wait(pool, length_of, std::string("xy")), 2U);
  EXPECT_EQ(fj::sync_wait(pool, length_of, kept), 4U);
  EXPECT_EQ(fj::sync_wait(pool, length_of, std::string(1000, 'x')), 1000U);
  EXPECT_EQ(fj::sync_wait(pool, &counter::plus, counter{5}, kept + "!"), 10U);
}

TEST(ForkArguments, ANonConstReferenceParameterTakesAnLvalue) {
  fj::busy_pool pool(2);
  auto parent = []() -> fj::task<std::string> {
    std::string s = "a";
    co_await fj::fork(append, s, 'b');
    co_await fj::join;
    co_return s;
  };
  EXPECT_EQ(fj::sync_wait(pool, parent), "ab");
}

}  // namespace
