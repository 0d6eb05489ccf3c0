#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "registry.hpp"
#include "verify.hpp"

// A parallel for-loop whose iterations each sort their own copy of an array (seed 004: 500 iterations
// of 100,000 elements): coarse, independent, evenly sized work.
namespace fjb::pfor {

struct problem {
  std::size_t iterations;
  std::size_t elements;
};

[[nodiscard]] constexpr problem problem_at(scale s) noexcept {
  return by_scale(s, problem{40, 20'000}, problem{100, 50'000}, problem{500, 100'000});
}

// N is the number of iterations (sorts); the elements per sort are the scale's.
[[nodiscard]] constexpr std::int64_t default_iterations(scale s) noexcept {
  return static_cast<std::int64_t>(problem_at(s).iterations);
}
inline constexpr size_parameter problem_size{"iterations (sorts)", default_iterations, 1, 1'000'000};

[[nodiscard]] constexpr problem problem_at(const run_request& request) noexcept {
  return {static_cast<std::size_t>(request.n), problem_at(request.size).elements};
}

[[nodiscard]] std::vector<int> shared_input(std::size_t elements);

// Sorts a copy of the input and returns a fingerprint of the sorted copy: the body of every iteration.
[[nodiscard]] std::uint64_t sort_copy(const std::vector<int>& input);

// Every iteration ran and produced the fingerprint of the correctly sorted input.
void verify(const std::vector<int>& input, const std::vector<std::uint64_t>& fingerprints);

}  // namespace fjb::pfor
