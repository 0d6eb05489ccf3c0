// A program compiled in another layout mode than the forkjoin library is refused with a named error when it
// makes a pool, instead of sharing stacks whose layout differs (include/forkjoin/detail/build_mode.hpp).
// The CMake target passes the library's FJ_STACK_CHECKS to this file as to every user; the file flips it
// before anything includes forkjoin, as a program built without CMake and with the wrong value would.

#if !defined(FJ_STACK_CHECKS)
#error "the forkjoin target passes FJ_STACK_CHECKS to the code that links it"
#endif
#if FJ_STACK_CHECKS
#undef FJ_STACK_CHECKS
#define FJ_STACK_CHECKS 0
#else
#undef FJ_STACK_CHECKS
#define FJ_STACK_CHECKS 1
#endif

#include <gtest/gtest.h>

#include <forkjoin/lazy_pool.hpp>
#include <string>

#include "forkjoin/errors.hpp"

TEST(BuildModeMismatch, APoolMadeInAnotherStackCheckModeThanTheLibraryThrowsInvalidConfig) {
  ASSERT_NE(fj::detail::k_build_mode, fj::detail::library_build_mode());
  try {
    fj::lazy_pool pool(1);
    FAIL() << "a pool was made although its modes differ from the library's";
  } catch (const fj::invalid_config_error& e) {
    std::string const what = e.what();
    EXPECT_NE(what.find("stack checks"), std::string::npos) << what;
    EXPECT_NE(what.find("Build the library in the same configuration"), std::string::npos) << what;
  }
}
