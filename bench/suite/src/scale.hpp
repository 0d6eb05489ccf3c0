#pragma once

#include <optional>
#include <string_view>

namespace fjb {

// How big the problems are: `quick` for smoke tests, `standard` for a small machine, `paper` for Table I.
enum class scale { quick, standard, paper };

[[nodiscard]] std::string_view name_of(scale s) noexcept;
[[nodiscard]] std::optional<scale> parse_scale(std::string_view text) noexcept;

// Picks the value for the given scale from the three candidates.
template <class T>
[[nodiscard]] constexpr T by_scale(scale s, T quick, T standard, T paper) noexcept {
  switch (s) {
    case scale::quick: return quick;
    case scale::standard: return standard;
    case scale::paper: return paper;
  }
  return standard;
}

}  // namespace fjb
