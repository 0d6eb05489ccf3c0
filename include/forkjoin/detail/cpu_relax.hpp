#pragma once
// The pause a spinning thread executes between polls: it tells the core that this is a wait loop, so that the
// other hardware thread of the core gets its resources and leaving the loop does not pay for a mis-speculated
// memory order. Every spin loop in the library calls this one.

namespace fj::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace fj::detail
