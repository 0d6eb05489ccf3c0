#pragma once

#include <array>
#include <cstdint>
#include <span>

// SHA-1 as specified in FIPS 180-4, written for UTS's splittable random numbers (Olivier et al.), where
// every tree node's state is the digest of its parent's state and its child index.
namespace fjb::uts {

using sha1_digest = std::array<std::uint8_t, 20>;

[[nodiscard]] sha1_digest sha1(std::span<const std::uint8_t> message) noexcept;

}  // namespace fjb::uts
