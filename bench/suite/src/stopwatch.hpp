#pragma once

#include <chrono>
#include <utility>

namespace fjb {

// Wall-clock seconds that `body` takes.
template <class Body>
[[nodiscard]] double seconds_taken(Body&& body) {
  const auto start = std::chrono::steady_clock::now();
  std::forward<Body>(body)();
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(stop - start).count();
}

}  // namespace fjb
