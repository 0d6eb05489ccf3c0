#pragma once
// Which sanitizers this translation unit is compiled with, for g++ (__SANITIZE_*__) and clang
// (__has_feature). Code that the sanitizers cannot follow (fences under TSan, recycled memory, stack
// segments under ASan) picks another path on these.

#if defined(__SANITIZE_ADDRESS__)
#define FJ_DETAIL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FJ_DETAIL_ASAN 1
#endif
#endif
#ifndef FJ_DETAIL_ASAN
#define FJ_DETAIL_ASAN 0
#endif

#if defined(__SANITIZE_THREAD__)
#define FJ_DETAIL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FJ_DETAIL_TSAN 1
#endif
#endif
#ifndef FJ_DETAIL_TSAN
#define FJ_DETAIL_TSAN 0
#endif

namespace fj::detail {

inline constexpr bool asan_build = FJ_DETAIL_ASAN != 0;
inline constexpr bool tsan_build = FJ_DETAIL_TSAN != 0;

}  // namespace fj::detail
