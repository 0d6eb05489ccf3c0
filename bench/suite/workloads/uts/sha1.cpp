#include "sha1.hpp"

#include <algorithm>
#include <bit>

namespace fjb::uts {
namespace {

constexpr std::size_t block_bytes = 64;

struct hash_state {
  std::array<std::uint32_t, 5> h{0x67452301U, 0xEFCDAB89U, 0x98BADCFEU, 0x10325476U, 0xC3D2E1F0U};
};

std::uint32_t big_endian_word(const std::uint8_t* bytes) noexcept {
  return (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) | (std::uint32_t{bytes[2]} << 8) |
         std::uint32_t{bytes[3]};
}

// The round function and constant for each of the four stages of 20 rounds (FIPS 180-4, 4.1.1 and 4.2.1).
std::uint32_t mix(int round, std::uint32_t b, std::uint32_t c, std::uint32_t d) noexcept {
  if (round < 20) {
    return ((b & c) | (~b & d)) + 0x5A827999U;
  }
  if (round < 40) {
    return (b ^ c ^ d) + 0x6ED9EBA1U;
  }
  if (round < 60) {
    return ((b & c) | (b & d) | (c & d)) + 0x8F1BBCDCU;
  }
  return (b ^ c ^ d) + 0xCA62C1D6U;
}

void compress(hash_state& state, const std::uint8_t* block) noexcept {
  std::array<std::uint32_t, 80> schedule{};
  for (std::size_t t = 0; t < 16; ++t) {
    schedule[t] = big_endian_word(block + 4 * t);
  }
  for (std::size_t t = 16; t < 80; ++t) {
    schedule[t] = std::rotl(schedule[t - 3] ^ schedule[t - 8] ^ schedule[t - 14] ^ schedule[t - 16], 1);
  }
  auto [a, b, c, d, e] = state.h;
  for (int t = 0; t < 80; ++t) {
    const std::uint32_t next = std::rotl(a, 5) + mix(t, b, c, d) + e + schedule[static_cast<std::size_t>(t)];
    e = d;
    d = c;
    c = std::rotl(b, 30);
    b = a;
    a = next;
  }
  state.h[0] += a;
  state.h[1] += b;
  state.h[2] += c;
  state.h[3] += d;
  state.h[4] += e;
}

}  // namespace

sha1_digest sha1(std::span<const std::uint8_t> message) noexcept {
  hash_state state;
  std::size_t offset = 0;
  for (; message.size() - offset >= block_bytes; offset += block_bytes) {
    compress(state, message.data() + offset);
  }
  // Padding: a 1 bit, zeros, then the message length in bits as a 64-bit big-endian number.
  std::array<std::uint8_t, 2 * block_bytes> tail{};
  const std::size_t rest = message.size() - offset;
  std::copy_n(message.data() + offset, rest, tail.begin());
  tail[rest] = 0x80;
  const std::size_t tail_bytes = rest + 1 + 8 <= block_bytes ? block_bytes : 2 * block_bytes;
  const std::uint64_t bit_length = std::uint64_t{message.size()} * 8;
  for (std::size_t i = 0; i < 8; ++i) {
    tail[tail_bytes - 1 - i] = static_cast<std::uint8_t>(bit_length >> (8 * i));
  }
  for (std::size_t done = 0; done < tail_bytes; done += block_bytes) {
    compress(state, tail.data() + done);
  }
  sha1_digest digest{};
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t byte = 0; byte < 4; ++byte) {
      digest[4 * i + byte] = static_cast<std::uint8_t>(state.h[i] >> (24 - 8 * byte));
    }
  }
  return digest;
}

}  // namespace fjb::uts
