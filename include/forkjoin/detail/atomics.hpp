#pragma once
// The one header through which forkjoin's fences go, so that a ThreadSanitizer build or a model checker can
// replace them in one place. See docs/protocols/deque.md §"Modes" for how the deque uses them.
//
// Three kinds of fence:
//   seq_cst_fence()  a full hardware fence, as std::atomic_thread_fence(seq_cst); also release_fence() and
//                    acquire_fence(). In TSan builds all three become operations TSan understands (below).
//   light_fence()    the cheap side of an asymmetric pair: only a compiler barrier when asymmetric fences are
//                    active, otherwise a full fence.
//   heavy_fence()    the expensive side: sys_membarrier when asymmetric fences are active, otherwise a
//                    full fence.
//
// Why light + heavy give the guarantee of two seq_cst fences. The pattern is store buffering:
//     thread A (frequent): store X; light_fence(); load Y
//     thread B (rare):     store-or-load Y; heavy_fence(); load X
// and we must exclude "A misses B's access of Y and B misses A's store of X". light_fence() keeps the
// compiler from moving A's load above its store. membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) executes a
// full memory barrier on every thread of the process that is running on some CPU during the call, and a
// thread that is not running passes through a context switch, which is itself a full barrier; the caller
// gets a full barrier on entry and on return. So during B's heavy_fence() there is a point P in A's
// instruction stream where A executed a full barrier, after B's accesses before the call and before B's
// accesses after it.
//   - If A's store of X is before P, it is globally visible before heavy_fence() returns, so B's load
//     sees it.
//   - Otherwise A's load of Y is after P, so it sees B's access of Y (or a later value).
// Either way one side sees the other, as with two seq_cst fences. This is an argument in the Linux kernel's
// memory model, not in C++'s: the C++ standard has no notion of membarrier.

#include <atomic>
#include <cstdlib>

#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/sanitizers.hpp"

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace fj::detail {

// tsan_build (sanitizers.hpp): TSan does not model fences, so code that relies on fences must use ordered
// accesses instead in that build (docs/traps.md "ThreadSanitizer does not understand fences",
// docs/protocols/deque.md §"TSan mode").

// Keeps the compiler from moving memory accesses across this point; emits no instruction.
inline void compiler_fence() noexcept { std::atomic_signal_fence(std::memory_order_seq_cst); }

namespace fences {
// TSan build only: ThreadSanitizer ignores fences (g++-12 even warns, -Wtsan), so it would miss the
// synchronization they give and report false races. There the fences below become operations on this one
// shared atomic, which TSan does model. That over-approximates (every fence then synchronizes with every
// earlier one, so a real race can be hidden) but never reports a false one. Code whose correctness TSan
// should check, like the deque, uses ordered accesses instead of fences in TSan builds.
inline std::atomic<unsigned> tsan_stand_in{0};
}  // namespace fences

// A full fence, equivalent to std::atomic_thread_fence(seq_cst). On x86-64 a locked no-op on the top of the
// stack does the same job as mfence (x86 orders locked instructions with all loads and stores) and is
// cheaper (docs/experiments.md, "A locked no-op instead of mfence").
inline void seq_cst_fence() noexcept {
  if constexpr (tsan_build) {
    // seq_cst: TSan stand-in for a seq_cst fence (see fences::tsan_stand_in).
    fences::tsan_stand_in.fetch_add(0, std::memory_order_seq_cst);
  } else {
#if defined(__x86_64__)
    asm volatile("lock orq $0, (%%rsp)" ::: "memory", "cc");
#else
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
  }
}

// std::atomic_thread_fence(release), or its TSan stand-in.
inline void release_fence() noexcept {
  if constexpr (tsan_build) {
    // release: TSan stand-in for a release fence; pairs with the load in acquire_fence().
    fences::tsan_stand_in.fetch_add(0, std::memory_order_release);
  } else {
    std::atomic_thread_fence(std::memory_order_release);
  }
}

// std::atomic_thread_fence(acquire), or its TSan stand-in.
inline void acquire_fence() noexcept {
  if constexpr (tsan_build) {
    // acquire: TSan stand-in for an acquire fence; pairs with the read-modify-writes in the other fences.
    (void)fences::tsan_stand_in.load(std::memory_order_acquire);
  } else {
    std::atomic_thread_fence(std::memory_order_acquire);
  }
}

namespace fences {
// Written once, by the first successful enable_asymmetric_fences(), from false to true; never reset.
inline std::atomic<bool> asymmetric_active{false};
}  // namespace fences

// Executes a full barrier on every running thread of this process (sys_membarrier). Precondition:
// enable_asymmetric_fences() returned true. A failure here is a broken invariant, so it terminates.
inline void process_wide_fence() noexcept {
#if defined(__linux__)
  compiler_fence();
  if (::syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) {
    internal_error("membarrier(PRIVATE_EXPEDITED) failed after a successful registration");
  }
  compiler_fence();
#else
  seq_cst_fence();
#endif
}

// Whether the environment variable `name` is set to exactly "1" (the switches that turn a fence mode off).
inline bool env_flag_set(const char* name) noexcept {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] == '1' && value[1] == '\0';
}

// Turns asymmetric fences on if the platform supports them: Linux with MEMBARRIER_CMD_PRIVATE_EXPEDITED, not
// a TSan build, and the environment variable FJ_NO_ASYMMETRIC_FENCES is not set to "1". Idempotent and
// thread-safe; returns whether asymmetric fences are active. The registration costs a system call, once.
inline bool enable_asymmetric_fences() noexcept {
  if constexpr (tsan_build) {
    return false;
  } else {
#if defined(__linux__)
    static const bool active = [] {
      if (env_flag_set("FJ_NO_ASYMMETRIC_FENCES")) return false;
      const long supported = ::syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
      if (supported < 0 || (supported & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) {
        return false;
      }
      if (::syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0) {
        return false;
      }
      // One barrier now: a sandbox (seccomp) may allow the registration and refuse the barrier itself, which
      // would otherwise abort at the first steal (process_wide_fence), too late to fall back (found in
      // review).
      if (::syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) {
        return false;
      }
      // release: the readers' loads are relaxed, so nothing pairs with it; what orders this store before any
      // reader is the contract below (enabled before any deque that uses it is made).
      fences::asymmetric_active.store(true, std::memory_order_release);
      return true;
    }();
    return active;
#else
    return false;
#endif
  }
}

// Whether asymmetric fences are active. A relaxed load: cheap enough for a hot path.
// CONTRACT: code that pairs light_fence() with heavy_fence() across threads must call
// enable_asymmetric_fences() before it starts any of those threads. Thread creation then orders the one write
// of the flag before every read, so all threads agree on the mode; a thread that read "inactive" while
// another read "active" would pair a compiler barrier with a full fence, which is not enough. (The deque does
// not depend on this contract: each deque captures its mode once, at construction.)
inline bool asymmetric_fences_active() noexcept {
  // relaxed: ordered by the contract above (thread creation after enable_asymmetric_fences()).
  return fences::asymmetric_active.load(std::memory_order_relaxed);
}

// The frequent side of a store-buffering pair; see the header comment.
inline void light_fence() noexcept {
  if (asymmetric_fences_active()) {
    compiler_fence();
  } else {
    seq_cst_fence();
  }
}

// The rare side of a store-buffering pair; see the header comment.
inline void heavy_fence() noexcept {
  if (asymmetric_fences_active()) {
    process_wide_fence();
  } else {
    seq_cst_fence();
  }
}

}  // namespace fj::detail
