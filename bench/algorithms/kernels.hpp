#pragma once
// One implementation of each benchmarked algorithm (serial std::, forkjoin, oneTBB, OpenMP,
// std::execution::par), as plain functions over spans; `workers` is the thread count to use. A null pointer
// means the implementation has no such algorithm.

#include <cstddef>
#include <cstdint>
#include <span>

namespace fja {

using value = std::uint64_t;  // element of the element-wise algorithms, the reductions and the scans (wraps)
using key = std::int32_t;     // element of the sorts

// The element functions every implementation uses.
inline value step(value x) { return x * 3 + 1; }
inline bool counted(value x) { return x % 3 == 0; }

struct kernels {
  const char* name = nullptr;
  void (*for_each)(std::span<value> xs, int workers) = nullptr;                               // x = step(x)
  void (*transform)(std::span<const value> in, std::span<value> out, int workers) = nullptr;  // step
  value (*reduce)(std::span<const value> xs, int workers) = nullptr;                          // sum
  value (*transform_reduce)(std::span<const value> xs, int workers) = nullptr;  // sum of squares
  void (*inclusive_scan)(std::span<const value> in, std::span<value> out, int workers) = nullptr;  // sums
  void (*exclusive_scan)(std::span<const value> in, std::span<value> out, int workers) = nullptr;  // init 0
  std::ptrdiff_t (*count_if)(std::span<const value> xs, int workers) = nullptr;                    // counted
  std::size_t (*find)(std::span<const value> xs, value target, int workers) = nullptr;  // first == target
  void (*sort)(std::span<key> xs, int workers) = nullptr;                               // ascending
  void (*stable_sort)(std::span<key> xs, int workers) = nullptr;
};

kernels serial_kernels();
kernels forkjoin_kernels();
// Defined only when the implementation is built (FJA_HAVE_TBB, FJA_HAVE_OMP, FJA_HAVE_STD_PAR).
kernels tbb_kernels();
kernels omp_kernels();
kernels std_par_kernels();

}  // namespace fja
