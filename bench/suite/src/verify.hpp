#pragma once

#include <cmath>
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

template <class T>
void expect_equal(std::string_view what, const T& computed, const T& expected) {
  if (!(computed == expected)) {
    std::ostringstream message;
    message << what << ": computed " << computed << ", expected " << expected;
    throw wrong_answer(message.str());
  }
}

inline void expect_close(std::string_view what, double computed, double expected, double relative_tolerance) {
  if (!(std::abs(computed - expected) <= relative_tolerance * std::abs(expected))) {
    std::ostringstream message;
    message.precision(17);
    message << what << ": computed " << computed << ", expected " << expected << " within a relative "
            << relative_tolerance;
    throw wrong_answer(message.str());
  }
}

inline void expect_true(std::string_view what, bool holds) {
  if (!holds) {
    throw wrong_answer(std::string(what));
  }
}

}  // namespace fjb
