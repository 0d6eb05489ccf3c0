#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "registry.hpp"
#include "verify.hpp"

// Quicksort of random integers, both halves sorted in parallel, std::sort below a cutoff (seed 004:
// 5,000,000 elements, cutoff 5,000).
namespace fjb::quicksort {

inline constexpr std::ptrdiff_t cutoff = 5'000;

// N is the number of elements sorted.
[[nodiscard]] constexpr std::int64_t default_element_count(scale s) noexcept {
  return by_scale<std::int64_t>(s, 200'000, 2'000'000, 5'000'000);
}
inline constexpr size_parameter problem_size{"elements to sort", default_element_count, cutoff, 500'000'000};

[[nodiscard]] constexpr std::size_t element_count(const run_request& request) noexcept {
  return static_cast<std::size_t>(request.n);
}

// Moves the middle element's value to its sorted place and returns that place; smaller values end up
// before it and the others after it.
inline int* partition_around_middle(int* first, int* last) noexcept {
  std::iter_swap(first + (last - first) / 2, last - 1);
  const int pivot = *(last - 1);
  int* middle = std::partition(first, last - 1, [pivot](int x) { return x < pivot; });
  std::iter_swap(middle, last - 1);
  return middle;
}

[[nodiscard]] std::vector<int> random_input(std::size_t count);

// Sorted, and the same values as random_input(count) (compared by an order-independent fingerprint).
void verify(const std::vector<int>& sorted);

// The OpenMP and TBB versions differ only in their sort and measure it the same way on their team (an
// omp_team or a tbb_team: built with the worker count, `time(body)` runs the body on the team).
template <class Team, void (*Sort)(int* first, int* last)>
run_result run_on_team(const run_request& request) {
  std::vector<int> values = random_input(element_count(request));
  Team team(request.workers);
  const double seconds = team.time([&] { Sort(values.data(), values.data() + values.size()); });
  verify(values);
  return {seconds};
}

}  // namespace fjb::quicksort
