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

// One stage of 20 rounds (FIPS 180-4, 6.1.2 step 3) with its logical function f and constant K
// (4.1.1, 4.2.1).
template <int First, class Function>
inline void twenty_rounds(std::array<std::uint32_t, 5>& v, const std::array<std::uint32_t, 80>& w,
                          std::uint32_t k, Function f) noexcept {
  auto& [a, b, c, d, e] = v;
  for (std::size_t t = First; t < First + 20; ++t) {
    const std::uint32_t next = std::rotl(a, 5) + f(b, c, d) + e + k + w[t];
    e = d;
    d = c;
    c = std::rotl(b, 30);
    b = a;
    a = next;
  }
}

void compress(hash_state& state, const std::uint8_t* block) noexcept {
  std::array<std::uint32_t, 80> w{};
  for (std::size_t t = 0; t < 16; ++t) {
    w[t] = big_endian_word(block + 4 * t);
  }
  for (std::size_t t = 16; t < 80; ++t) {
    w[t] = std::rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  }
  std::array<std::uint32_t, 5> v = state.h;
  const auto choose = [](std::uint32_t x, std::uint32_t y, std::uint32_t z) { return (x & y) ^ (~x & z); };
  const auto parity = [](std::uint32_t x, std::uint32_t y, std::uint32_t z) { return x ^ y ^ z; };
  const auto majority = [](std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    return (x & y) ^ (x & z) ^ (y & z);
  };
  twenty_rounds<0>(v, w, 0x5A827999U, choose);
  twenty_rounds<20>(v, w, 0x6ED9EBA1U, parity);
  twenty_rounds<40>(v, w, 0x8F1BBCDCU, majority);
  twenty_rounds<60>(v, w, 0xCA62C1D6U, parity);
  for (std::size_t i = 0; i < 5; ++i) {
    state.h[i] += v[i];
  }
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
