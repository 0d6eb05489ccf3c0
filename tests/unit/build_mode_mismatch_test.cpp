// A program compiled in another layout mode than the forkjoin library is refused with a named error when it
// makes a pool, instead of sharing stacks whose layout differs (include/forkjoin/detail/build_mode.hpp).
// This file flips NDEBUG before anything includes forkjoin, so its stack checks differ from the library's,
// unless AddressSanitizer turns them on in both.

#if defined(NDEBUG)
#undef NDEBUG
#else
#define NDEBUG 1
#endif

#include <gtest/gtest.h>

#include <forkjoin/lazy_pool.hpp>
#include <string>

#include "forkjoin/errors.hpp"

TEST(BuildModeMismatch, APoolMadeInAnotherStackCheckModeThanTheLibraryThrowsInvalidConfig) {
  if (fj::detail::k_build_mode == fj::detail::library_build_mode()) {
    GTEST_SKIP() << "stack checks are on in both modes here (AddressSanitizer)";
  }
  try {
    fj::lazy_pool pool(1);
    FAIL() << "a pool was made although its modes differ from the library's";
  } catch (const fj::invalid_config_error& e) {
    std::string const what = e.what();
    EXPECT_NE(what.find("stack checks"), std::string::npos) << what;
    EXPECT_NE(what.find("Build the library in the same configuration"), std::string::npos) << what;
  }
}
