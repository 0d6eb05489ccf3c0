#pragma once
// The heavy side of an asymmetric fence pair (atomics.hpp) aimed at one thread: a full barrier on the core
// that thread runs on, instead of on every core that runs a thread of the process. A steal needs a barrier in
// its victim alone (docs/protocols/deque.md, "Interrupting the victim's core only"), and process_wide_fence()
// interrupts up to P - 1 cores for it.
//
// The thread publishes where the kernel keeps its current CPU number: the rseq area that glibc registers for
// every thread, whose cpu_id the kernel rewrites before the thread returns to user space on another CPU. The
// fencing thread reads that number and calls membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
// MEMBARRIER_CMD_FLAG_CPU, cpu), which interrupts that CPU if a thread of the process runs there, and the
// interrupt executes a full barrier (smp_mb() in the kernel's ipi_rseq, since Linux 5.10; we require 5.11).
// Why a stale number is harmless: see deque.md.

#include <cstdint>

#include "forkjoin/detail/atomics.hpp"

#if defined(__linux__) && __has_include(<sys/rseq.h>)
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#define FJ_DETAIL_HAVE_CPU_FENCE 1
#else
#define FJ_DETAIL_HAVE_CPU_FENCE 0
#endif

namespace fj::detail {

#if FJ_DETAIL_HAVE_CPU_FENCE
namespace cpu_fences {
// Whether the running kernel is at least major.minor.
inline bool kernel_at_least(int major, int minor) noexcept {
  utsname u{};
  if (::uname(&u) != 0) return false;
  char* end = nullptr;
  const long got_major = std::strtol(u.release, &end, 10);
  if (end == u.release || *end != '.') return false;
  const char* const minor_text = end + 1;
  const long got_minor = std::strtol(minor_text, &end, 10);
  if (end == minor_text) return false;
  return got_major > major || (got_major == major && got_minor >= minor);
}
}  // namespace cpu_fences
#endif

// Turns fences aimed at one thread's core on, if the platform supports them: asymmetric fences are active,
// Linux 5.11 or later with MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, glibc has registered rseq, and the
// environment variable FJ_NO_CPU_FENCES is not "1". Idempotent and thread-safe. A thread that fences another
// must see the registration happen before: it does when it got the other thread's slot from a release store
// made after this_thread_cpu_slot() returned.
inline bool enable_cpu_fences() noexcept {
#if FJ_DETAIL_HAVE_CPU_FENCE
  static const bool on = [] {
    if (!enable_asymmetric_fences()) return false;
    if (env_flag_set("FJ_NO_CPU_FENCES")) return false;
    // cpu_id is the second 32-bit field of struct rseq.
    if (__rseq_size < 8 || !cpu_fences::kernel_at_least(5, 11)) return false;
    const long supported = ::syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (supported < 0 || (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) == 0) return false;
    if (::syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0) != 0) return false;
    // As for enable_asymmetric_fences(): find out now whether the call is refused, not at the first steal.
    if (::syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, MEMBARRIER_CMD_FLAG_CPU, 0) != 0) {
      return false;
    }
    return true;
  }();
  return on;
#else
  return false;
#endif
}

// Where the calling thread's current CPU number is kept (valid while the thread lives), or null when fences
// aimed at one core are off (enable_cpu_fences(), which this calls).
[[nodiscard]] inline const std::uint32_t* this_thread_cpu_slot() noexcept {
#if FJ_DETAIL_HAVE_CPU_FENCE
  if (!enable_cpu_fences()) return nullptr;
  auto* const area = reinterpret_cast<const struct rseq*>(
      static_cast<const char*>(__builtin_thread_pointer()) + __rseq_offset);
  return &area->cpu_id;
#else
  return nullptr;
#endif
}

// The guarantee process_wide_fence() gives for every thread (atomics.hpp), given for the one thread whose CPU
// slot this is, by interrupting its core only; process_wide_fence() itself when the slot is null or holds no
// CPU number (the kernel writes negative values there before and after registration).
inline void process_wide_fence(const std::uint32_t* slot) noexcept {
#if FJ_DETAIL_HAVE_CPU_FENCE
  if (slot != nullptr) {
    // relaxed: the kernel writes this field; any value it held since the caller's last load before this
    // call will do (deque.md, "Interrupting the victim's core only").
    const auto cpu = static_cast<std::int32_t>(__atomic_load_n(slot, __ATOMIC_RELAXED));
    compiler_fence();
    if (cpu >= 0 &&
        ::syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, MEMBARRIER_CMD_FLAG_CPU, cpu) == 0) {
      compiler_fence();
      return;
    }
  }
#else
  (void)slot;
#endif
  process_wide_fence();
}

// Lets other threads run, for a thread waiting on one that holds a deque's claim token for a moment.
inline void let_others_run() noexcept {
#if FJ_DETAIL_HAVE_CPU_FENCE
  ::sched_yield();
#else
  compiler_fence();
#endif
}

}  // namespace fj::detail
