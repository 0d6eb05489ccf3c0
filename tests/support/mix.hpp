#pragma once
// splitmix64's finaliser: the stress tests derive every random choice of a tree (fan-out, depth, where a
// fault or a shutdown strikes) from a node's seed by this hash, so that a failing seed replays the same tree.

#include <cstdint>

namespace fj::test {

[[nodiscard]] constexpr std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace fj::test
