#pragma once
// co_await fj::join: wait for every child this task has forked since its last join, then rethrow the first
// exception any of them (or any called child) threw.

namespace fj {

struct join_t {
  explicit constexpr join_t() = default;
};

inline constexpr join_t join{};

}  // namespace fj
