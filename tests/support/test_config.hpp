// Build-dependent knobs shared by all tests: how much work to do, which seed to use, what the build can take.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#if defined(__has_feature)
#define FJ_TEST_HAS_FEATURE(x) __has_feature(x)
#else
#define FJ_TEST_HAS_FEATURE(x) 0
#endif

// 1 where a test may replace the global operator new/delete (e.g. to count allocations). clang's static
// ThreadSanitizer runtime defines them itself, so replacing them there fails to link ("multiple definition").
// Guard the replacement with `#if FJ_TEST_CAN_REPLACE_GLOBAL_NEW` and skip the counting tests otherwise.
#if defined(__clang__) && (defined(__SANITIZE_THREAD__) || FJ_TEST_HAS_FEATURE(thread_sanitizer))
#define FJ_TEST_CAN_REPLACE_GLOBAL_NEW 0
#else
#define FJ_TEST_CAN_REPLACE_GLOBAL_NEW 1
#endif

namespace fj::test {

#if defined(__SANITIZE_ADDRESS__) || FJ_TEST_HAS_FEATURE(address_sanitizer)
inline constexpr bool asan = true;
#else
inline constexpr bool asan = false;
#endif

#if defined(__SANITIZE_THREAD__) || FJ_TEST_HAS_FEATURE(thread_sanitizer)
inline constexpr bool tsan = true;
#else
inline constexpr bool tsan = false;
#endif

#if defined(__OPTIMIZE__)
inline constexpr bool optimized = true;
#else
inline constexpr bool optimized = false;
#endif

#if defined(FJ_CHAOS) && FJ_CHAOS
inline constexpr bool chaos = true;
#else
inline constexpr bool chaos = false;
#endif

inline constexpr bool sanitized = asan || tsan;

inline constexpr bool can_replace_global_new = FJ_TEST_CAN_REPLACE_GLOBAL_NEW != 0;

// g++-12 does not compile symmetric transfer into a tail call at -O0, nor under ASan or TSan even at -O2
// (docs/traps.md "g++ and symmetric transfer"): a deep chain of nested awaits then grows the OS stack. Tests
// cap their recursion depth when this is true. clang-19 makes the tail call in all of these builds.
#if defined(__GNUC__) && !defined(__clang__)
inline constexpr bool gcc_no_tail_calls = !optimized || asan || tsan;
#else
inline constexpr bool gcc_no_tail_calls = false;
#endif

// Divisor for iteration counts: sanitized and unoptimised builds run the same tests on less work.
inline constexpr int scale() {
  if constexpr (tsan) {
    return 8;
  } else if constexpr (asan || !optimized) {
    return 4;
  } else {
    return 1;
  }
}

// n divided by scale(), but never below `floor` so that a scaled-down test still tests something.
inline constexpr std::uint64_t scaled(std::uint64_t n, std::uint64_t floor = 1) {
  std::uint64_t const s = n / static_cast<std::uint64_t>(scale());
  return s < floor ? floor : s;
}

inline constexpr std::uint64_t default_seed = 0x5eed'2026'1122ULL;

// The seed for this run: FJ_TEST_SEED (decimal or 0x-hex) if set, else default_seed. Printed once per process
// so that a failure can be reproduced with `FJ_TEST_SEED=<seed> <test program>`.
inline std::uint64_t seed() {
  static std::uint64_t const value = [] {
    std::uint64_t chosen = default_seed;
    if (char const* env = std::getenv("FJ_TEST_SEED"); env != nullptr && *env != '\0') {
      char* end = nullptr;
      unsigned long long const parsed = std::strtoull(env, &end, 0);
      if (end != nullptr && *end == '\0') {
        chosen = static_cast<std::uint64_t>(parsed);
      } else {
        std::fprintf(stderr, "[fj::test] ignoring FJ_TEST_SEED='%s' (not a number)\n", env);
      }
    }
    std::fprintf(stderr, "[fj::test] seed = %llu (rerun with FJ_TEST_SEED=%llu)\n",
                 static_cast<unsigned long long>(chosen), static_cast<unsigned long long>(chosen));
    return chosen;
  }();
  return value;
}

}  // namespace fj::test

#undef FJ_TEST_HAS_FEATURE
