#include <cmath>

#include "uts.hpp"

namespace fjb::uts {
namespace {

// UTS caps the children of any node except a binomial root.
constexpr int max_children = 100;

// The 31 low bits of the digest's last four bytes, read big-endian, as a probability in [0, 1).
double uniform_from(const sha1_digest& state) noexcept {
  const std::uint32_t bits = (std::uint32_t{state[16]} << 24) | (std::uint32_t{state[17]} << 16) |
                             (std::uint32_t{state[18]} << 8) | std::uint32_t{state[19]};
  return static_cast<double>(bits & 0x7FFFFFFFU) / 2147483648.0;
}

sha1_digest digest_of_bytes(const std::uint8_t* bytes, std::size_t count) noexcept {
  return sha1(std::span<const std::uint8_t>(bytes, count));
}

// Geometric distribution with mean b: floor(log(1 - u) / log(1 - p)) with p = 1 / (1 + b).
int geometric_children(const tree_shape& shape, const node& parent) noexcept {
  const double mean = parent.height < shape.depth_limit ? shape.root_branching : 0.0;
  const double p = 1.0 / (1.0 + mean);
  const double u = uniform_from(parent.state);
  return static_cast<int>(std::floor(std::log(1.0 - u) / std::log(1.0 - p)));
}

}  // namespace

node root_of(const tree_shape& shape) noexcept {
  // The seed as the last four bytes (big-endian) of a 20-byte message of zeros.
  std::array<std::uint8_t, 20> message{};
  const auto seed = static_cast<std::uint32_t>(shape.root_seed);
  for (std::size_t i = 0; i < 4; ++i) {
    message[16 + i] = static_cast<std::uint8_t>(seed >> (24 - 8 * i));
  }
  return {digest_of_bytes(message.data(), message.size()), 0};
}

int child_count(const tree_shape& shape, const node& parent) noexcept {
  if (shape.kind == distribution::binomial) {
    if (parent.height == 0) {
      return static_cast<int>(std::floor(shape.root_branching));
    }
    return uniform_from(parent.state) < shape.non_leaf_chance ? shape.non_leaf_children : 0;
  }
  const int drawn = geometric_children(shape, parent);
  return drawn > max_children ? max_children : drawn;
}

node child_of(const node& parent, int index) noexcept {
  // The parent's 20-byte state followed by the child's index as four big-endian bytes.
  std::array<std::uint8_t, 24> message{};
  std::copy(parent.state.begin(), parent.state.end(), message.begin());
  const auto number = static_cast<std::uint32_t>(index);
  for (std::size_t i = 0; i < 4; ++i) {
    message[20 + i] = static_cast<std::uint8_t>(number >> (24 - 8 * i));
  }
  return {digest_of_bytes(message.data(), message.size()), parent.height + 1};
}

}  // namespace fjb::uts
