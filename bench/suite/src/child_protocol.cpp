#include "child_protocol.hpp"

#include <charconv>
#include <cstdio>

namespace fjb {

std::string format_result_line(double seconds) {
  char digits[64];
  std::snprintf(digits, sizeof digits, "%.9f", seconds);
  return std::string(result_prefix) + digits + "\n";
}

std::optional<double> parse_result_line(std::string_view child_output) {
  const auto start = child_output.find(result_prefix);
  if (start == std::string_view::npos) {
    return std::nullopt;
  }
  const auto digits = child_output.substr(start + result_prefix.size());
  double seconds = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), seconds);
  if (error != std::errc{} || end == digits.data()) {
    return std::nullopt;
  }
  return seconds;
}

}  // namespace fjb
