#include "scale.hpp"

namespace fjb {

std::string_view name_of(scale s) noexcept {
  return by_scale<std::string_view>(s, "quick", "default", "paper");
}

std::optional<scale> parse_scale(std::string_view text) noexcept {
  for (scale s : {scale::quick, scale::standard, scale::paper}) {
    if (name_of(s) == text) {
      return s;
    }
  }
  return std::nullopt;
}

}  // namespace fjb
