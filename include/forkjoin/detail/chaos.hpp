#pragma once
// Chaos hooks for testing: with -DFJ_CHAOS=1 every publication point of the runtime (after a push, before a
// steal, before a join-counter update, before sleeping, before a submission) yields or spins for a short
// random time, so that interleavings the scheduler rarely produces happen routinely. The randomness is seeded
// from FJ_CHAOS_SEED (default 1) and the thread's order of first use, so a failing seed can be rerun. Without
// FJ_CHAOS the hook is an empty inline function.

#include <cstdint>

#if defined(FJ_CHAOS) && FJ_CHAOS
#include <atomic>
#include <cstdlib>
#include <thread>

#include "forkjoin/detail/cpu_relax.hpp"
#endif

namespace fj::detail {

#if defined(FJ_CHAOS) && FJ_CHAOS
inline std::uint64_t chaos_seed() noexcept {
  static std::uint64_t const seed = [] {
    const char* env = std::getenv("FJ_CHAOS_SEED");
    return env != nullptr ? std::strtoull(env, nullptr, 0) : std::uint64_t{1};
  }();
  return seed;
}

inline void chaos_point() noexcept {
  static std::atomic<std::uint64_t> threads{0};
  // relaxed: only makes each thread's sequence distinct.
  thread_local std::uint64_t state =
      chaos_seed() * 0x9E3779B97F4A7C15ULL + threads.fetch_add(1, std::memory_order_relaxed) + 1;
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  switch (state % 8) {
    case 0: std::this_thread::yield(); break;
    case 1:
      for (std::uint64_t i = (state >> 8) % 64; i > 0; --i) cpu_relax();
      break;
    default: break;
  }
}
#else
inline void chaos_point() noexcept {}
#endif

}  // namespace fj::detail
