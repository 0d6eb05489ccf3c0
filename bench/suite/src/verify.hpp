#pragma once

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fjb {

// Thrown when a benchmark computed something other than the known answer; never caught and ignored.
class wrong_answer : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Test hook: with FJB_TEST_CORRUPT_ANSWERS=1 every check fails, so that a ctest can prove a wrong answer is a
// loud failure (bench/suite/CMakeLists.txt, bench_wrong_answer_is_loud).
inline bool corrupt_answers_for_test() {
  static bool const corrupt = [] {
    const char* env = std::getenv("FJB_TEST_CORRUPT_ANSWERS");
    return env != nullptr && std::string_view(env) == "1";
  }();
  return corrupt;
}

template <class T>
void expect_equal(std::string_view what, const T& computed, const T& expected) {
  if (!(computed == expected) || corrupt_answers_for_test()) {
    std::ostringstream message;
    message << what << ": computed " << computed << ", expected " << expected;
    throw wrong_answer(message.str());
  }
}

inline void expect_close(std::string_view what, double computed, double expected, double relative_tolerance) {
  if (!(std::abs(computed - expected) <= relative_tolerance * std::abs(expected)) ||
      corrupt_answers_for_test()) {
    std::ostringstream message;
    message.precision(17);
    message << what << ": computed " << computed << ", expected " << expected << " within a relative "
            << relative_tolerance;
    throw wrong_answer(message.str());
  }
}

inline void expect_true(std::string_view what, bool holds) {
  if (!holds || corrupt_answers_for_test()) {
    throw wrong_answer(std::string(what));
  }
}

}  // namespace fjb
