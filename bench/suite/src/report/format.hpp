#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace fjb {

// printf-style number formatting that shows a dash for a value that could not be computed.
inline std::string format_number(double value, const char* format) {
  if (!std::isfinite(value)) {
    return "-";
  }
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

inline std::string milliseconds(double seconds) { return format_number(seconds * 1e3, "%.2f"); }

}  // namespace fjb
