#pragma once
// Non-temporal ("streaming") stores for an algorithm's output that is larger than the last-level cache
// (transform, and the scans' outputs written once a step's carry is known: scan.hpp, final_pass): an
// ordinary store first reads its line from memory (the read for ownership), so a transform moves three bytes
// per byte written (read the input, read and write back the output); a streaming store writes whole lines
// without reading them, two. The output then is not left in the caches, which an output larger than the
// last-level cache would not be anyway. docs/algorithms.md "Streaming stores".

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <type_traits>

#include "forkjoin/detail/sanitizers.hpp"

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define FJ_STREAMING_STORES 1
#else
#define FJ_STREAMING_STORES 0
#endif

namespace fj::detail::algo {

// The output size in bytes from which a call streams its output: the last-level cache's size (compiled:
// src/streaming_store.cpp).
[[nodiscard]] std::size_t streaming_threshold_bytes() noexcept;

inline constexpr std::size_t stream_line_bytes = 64;
// Below this many bytes an output never streams, without asking for the threshold (a call into the library).
inline constexpr std::size_t stream_min_bytes = std::size_t{1} << 20;

// Whether an output iterator can be written with streaming stores: plain memory (a contiguous iterator whose
// reference is an lvalue of its value type) of an arithmetic type whose size divides a line, so that a
// store of a converted value is a copy of its bytes. Only where the instructions exist (x86-64), and not
// under ThreadSanitizer, which does not see these stores and so could not report a race on the output.
template <class Out>
concept streamable_output =
    FJ_STREAMING_STORES == 1 && !tsan_build && std::contiguous_iterator<Out> &&
    std::is_same_v<std::iter_reference_t<Out>, std::iter_value_t<Out>&> &&
    std::is_arithmetic_v<std::iter_value_t<Out>> && !std::is_const_v<std::iter_value_t<Out>> &&
    stream_line_bytes % sizeof(std::iter_value_t<Out>) == 0;

// Whether [lo, hi) of one array and [lo2, hi2) of another share a byte (addresses compared as integers: they
// may belong to different objects).
[[nodiscard]] inline bool bytes_overlap(const void* lo, const void* hi, const void* lo2,
                                        const void* hi2) noexcept {
  auto const a = reinterpret_cast<std::uintptr_t>(lo);
  auto const b = reinterpret_cast<std::uintptr_t>(hi);
  auto const c = reinterpret_cast<std::uintptr_t>(lo2);
  auto const d = reinterpret_cast<std::uintptr_t>(hi2);
  return a < d && c < b;
}

// Whether a call writing n elements from `out`, reading from `in`, streams its output: a streamable output
// of at least streaming_threshold_bytes() that does not overlap a contiguous input (an element read and
// written in place has its line in the cache already: a streaming store would only evict it).
template <class In, class Out>
[[nodiscard]] bool streams(In in, Out out, std::size_t n) {
  if constexpr (streamable_output<Out>) {
    using T = std::iter_value_t<Out>;
    std::size_t const bytes = n * sizeof(T);
    if (bytes < stream_min_bytes || bytes < streaming_threshold_bytes()) return false;
    if constexpr (std::contiguous_iterator<In>) {
      const auto* const first = std::to_address(in);
      T* const o = std::to_address(out);
      if (bytes_overlap(first, first + n, o, o + n)) return false;
    }
    return true;
  } else {
    return false;
  }
}

#if FJ_STREAMING_STORES
// Orders this thread's streaming stores before its later stores (sfence): they are weakly ordered, so the
// release that publishes a block's end (a join, a root's completion) would not publish them otherwise. Runs
// when the block ends, also by an exception.
struct stream_fence {
  stream_fence() = default;
  stream_fence(const stream_fence&) = delete;
  stream_fence& operator=(const stream_fence&) = delete;
  ~stream_fence() { _mm_sfence(); }
};

// out[i] = next() for i in [0, count), in index order: ordinary stores up to the first line boundary and
// after the last, streaming stores for every whole line between, through a line-sized buffer.
template <class T, class Next>
void stream_fill(T* out, std::size_t count, Next next) {
  constexpr std::size_t per_line = stream_line_bytes / sizeof(T);
  stream_fence const fence;
  std::size_t i = 0;
  for (; i < count && reinterpret_cast<std::uintptr_t>(out + i) % stream_line_bytes != 0; ++i)
    out[i] = next();
  for (; count - i >= per_line; i += per_line) {
    alignas(stream_line_bytes) T line[per_line];
    for (std::size_t j = 0; j < per_line; ++j) line[j] = next();
    auto* const to = reinterpret_cast<__m128i*>(out + i);
    const auto* const from = reinterpret_cast<const __m128i*>(line);
    for (std::size_t q = 0; q < stream_line_bytes / sizeof(__m128i); ++q) {
      _mm_stream_si128(to + q, _mm_load_si128(from + q));
    }
  }
  for (; i < count; ++i) out[i] = next();
}
#endif

}  // namespace fj::detail::algo
