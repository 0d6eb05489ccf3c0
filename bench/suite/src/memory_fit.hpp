#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fjb {

struct memory_point {
  double workers;
  double mib;
};

// MRSS ~ a + b M1 P^n (libfork paper Eq. 17), M1 being the MRSS at one worker.
struct memory_fit {
  std::string implementation;
  double a_mib;
  double b;
  double n;
  double rms_residual_mib;
};

// Least squares over a and b for each exponent n in [0.1, 3], keeping the best n with a, b >= 0. Needs four
// worker counts or more (three parameters), one of them P = 1; otherwise no fit. If memory does not grow
// with P, b is 0 and n is NaN.
[[nodiscard]] std::optional<memory_fit> fit_memory_scaling(const std::vector<memory_point>& points);

}  // namespace fjb
