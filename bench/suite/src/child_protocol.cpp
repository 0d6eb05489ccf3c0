#include "child_protocol.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <utility>

namespace fjb {
namespace {

// The steal counters' names on the result line, in the order they are written.
constexpr std::array<std::pair<std::string_view, std::uint64_t steal_counts::*>, 4> counter_fields{{
    {"steals", &steal_counts::steals},
    {"steal_attempts", &steal_counts::steal_attempts},
    {"heavy_fences", &steal_counts::heavy_fences},
    {"steals_contended", &steal_counts::steals_contended},
}};

// Reads " name=<digits>" at the start of `text` and moves past it.
std::optional<std::uint64_t> take_field(std::string_view& text, std::string_view name) {
  if (!text.starts_with(' ') || !text.substr(1).starts_with(name) ||
      text.substr(1 + name.size()).substr(0, 1) != "=") {
    return std::nullopt;
  }
  const std::string_view digits = text.substr(name.size() + 2);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc{} || end == digits.data()) {
    return std::nullopt;
  }
  text = text.substr(static_cast<std::size_t>(end - text.data()));
  return value;
}

}  // namespace

std::string format_result_line(const child_result& result) {
  char digits[64];
  std::snprintf(digits, sizeof digits, "%.9f", result.seconds);
  std::string line = std::string(result_prefix) + digits;
  if (result.steals) {
    for (const auto& [name, member] : counter_fields) {
      line += ' ';
      line += name;
      line += '=';
      line += std::to_string((*result.steals).*member);
    }
  }
  if (result.work) {
    line += " work=" + std::to_string(*result.work);
  }
  return line + "\n";
}

std::optional<child_result> parse_result_line(std::string_view child_output) {
  const auto start = child_output.find(result_prefix);
  if (start == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view rest = child_output.substr(start + result_prefix.size());
  rest = rest.substr(0, rest.find('\n'));
  child_result result{0, std::nullopt, std::nullopt};
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), result.seconds);
  if (error != std::errc{} || end == rest.data()) {
    return std::nullopt;
  }
  rest = rest.substr(static_cast<std::size_t>(end - rest.data()));
  if (!rest.starts_with(" work=") && !rest.empty()) {
    steal_counts counts;
    for (const auto& [name, member] : counter_fields) {
      const auto value = take_field(rest, name);
      if (!value) {
        return std::nullopt;
      }
      counts.*member = *value;
    }
    result.steals = counts;
  }
  if (!rest.empty()) {
    result.work = take_field(rest, "work");
    if (!result.work) {
      return std::nullopt;
    }
  }
  if (!rest.empty()) {
    return std::nullopt;
  }
  return result;
}

}  // namespace fjb
