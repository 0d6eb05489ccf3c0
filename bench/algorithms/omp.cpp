// OpenMP: `parallel for` (static schedule), `reduction`, and the OpenMP 5 `scan` directive.
#include <omp.h>

#include <algorithm>
#include <atomic>

#include "kernels.hpp"

namespace fja {
namespace {

using index = std::ptrdiff_t;

index size_of(std::span<const value> xs) { return static_cast<index>(xs.size()); }

// clang's OpenMP keeps a scan's temporary buffer, one element per iteration, on the calling thread's stack:
// 10^7 elements overflow it. So the directive runs over blocks of at most this many elements (2 MiB of
// buffer), one parallel region each, and the running sum is carried from block to block.
constexpr index scan_block = index{1} << 18;

void scan_impl(std::span<const value> in, std::span<value> out, int w, bool inclusive) {
  value carry = 0;
  index const n = size_of(in);
  for (index lo = 0; lo < n; lo += scan_block) {
    index const hi = std::min(n, lo + scan_block);
    value sum = 0;  // an inscan reduction's variable starts at its identity; the carry is added on output
    if (inclusive) {
#pragma omp parallel for num_threads(w) reduction(inscan, + : sum)
      for (index i = lo; i < hi; ++i) {
        sum += in[static_cast<std::size_t>(i)];
#pragma omp scan inclusive(sum)
        out[static_cast<std::size_t>(i)] = carry + sum;
      }
      carry = out[static_cast<std::size_t>(hi - 1)];
    } else {
#pragma omp parallel for num_threads(w) reduction(inscan, + : sum)
      for (index i = lo; i < hi; ++i) {
        out[static_cast<std::size_t>(i)] = carry + sum;
#pragma omp scan exclusive(sum)
        sum += in[static_cast<std::size_t>(i)];
      }
      carry = out[static_cast<std::size_t>(hi - 1)] + in[static_cast<std::size_t>(hi - 1)];
    }
  }
}

}  // namespace

kernels omp_kernels() {
  kernels k;
  k.name = "OpenMP";
  k.for_each = [](std::span<value> xs, int w) {
    index const n = static_cast<index>(xs.size());
#pragma omp parallel for num_threads(w)
    for (index i = 0; i < n; ++i) xs[static_cast<std::size_t>(i)] = step(xs[static_cast<std::size_t>(i)]);
  };
  k.transform = [](std::span<const value> in, std::span<value> out, int w) {
    index const n = size_of(in);
#pragma omp parallel for num_threads(w)
    for (index i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = step(in[static_cast<std::size_t>(i)]);
  };
  k.reduce = [](std::span<const value> xs, int w) {
    value sum = 0;
    index const n = size_of(xs);
#pragma omp parallel for num_threads(w) reduction(+ : sum)
    for (index i = 0; i < n; ++i) sum += xs[static_cast<std::size_t>(i)];
    return sum;
  };
  k.transform_reduce = [](std::span<const value> xs, int w) {
    value sum = 0;
    index const n = size_of(xs);
#pragma omp parallel for num_threads(w) reduction(+ : sum)
    for (index i = 0; i < n; ++i) sum += xs[static_cast<std::size_t>(i)] * xs[static_cast<std::size_t>(i)];
    return sum;
  };
  k.inclusive_scan = [](std::span<const value> in, std::span<value> out, int w) {
    scan_impl(in, out, w, true);
  };
  k.exclusive_scan = [](std::span<const value> in, std::span<value> out, int w) {
    scan_impl(in, out, w, false);
  };
  k.count_if = [](std::span<const value> xs, int w) {
    std::ptrdiff_t count = 0;
    index const n = size_of(xs);
#pragma omp parallel for num_threads(w) reduction(+ : count)
    for (index i = 0; i < n; ++i) count += counted(xs[static_cast<std::size_t>(i)]) ? 1 : 0;
    return count;
  };
  k.find = [](std::span<const value> xs, value target, int w) {
    // No find in OpenMP: a dynamically scheduled loop over chunks that skips chunks past the best match.
    constexpr index chunk = 4096;
    index const n = size_of(xs);
    std::atomic<std::size_t> best{xs.size()};
#pragma omp parallel for num_threads(w) schedule(dynamic, 1)
    for (index c = 0; c < (n + chunk - 1) / chunk; ++c) {
      auto const lo = static_cast<std::size_t>(c * chunk);
      auto const hi = static_cast<std::size_t>(std::min(n, (c + 1) * chunk));
      if (lo >= best.load(std::memory_order_relaxed)) continue;
      for (std::size_t i = lo; i < hi; ++i) {
        if (xs[i] == target) {
          std::size_t seen = best.load(std::memory_order_relaxed);
          while (i < seen && !best.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
          }
          break;
        }
      }
    }
    return best.load(std::memory_order_relaxed);
  };
  return k;
}

}  // namespace fja
