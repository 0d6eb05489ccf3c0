#pragma once
// The compile-time modes that inline header code and the compiled library (src/) must agree on, and how a
// pool checks that they do.
//
// Most of forkjoin is inline and compiled into the user's translation units, but the scheduler loop
// (stealing, sleeping, running submissions) is compiled once into the library. Both sides touch the same
// deques, frames and segmented stacks, so the modes that change a protocol or a layout must be the same on
// both sides:
//   - ThreadSanitizer (tsan_build, atomics.hpp): the deque and the joins use ordered accesses instead of
//     fences, a different protocol;
//   - stack checks (k_stack_checks, segmented_stack.hpp, on unless NDEBUG): a checked stack tracks its newest
//     block, which the library's stack operations (take_stack freeing abandoned blocks) must keep up to date;
//   - AddressSanitizer (k_stack_poisoning, segmented_stack.hpp): free stack memory is poisoned, and whoever
//     allocates, frees or destroys a stack must poison and unpoison it the same way.
// A mismatch would not fail to link; it would lose synchronisation, or end in false reports and aborts, at
// run time. So the pool's constructor, inline in the user's code, passes the user's bits to the library,
// which compares them with its own and throws fj::invalid_config_error on a mismatch (src/pool_core.cpp).
//
// Two modes need no agreement. The chaos hooks (FJ_CHAOS, chaos.hpp) change timing only; the user's
// constructor passes its own hook, so a test compiled with FJ_CHAOS gets chaos in the scheduler loop too
// without a chaos build of the library. The trampoline mode (FJ_TRAMPOLINE, transfer.hpp) is handled by the
// scheduler, which always drains a parked handle, whichever mode the task's code was compiled in.
//
// The bits are those of the code that constructs the pool. All translation units of one program must agree
// on them anyway: they share frames and stacks among themselves just as they do with the library.

#include "forkjoin/detail/atomics.hpp"
#include "forkjoin/detail/chaos.hpp"
#include "forkjoin/detail/segmented_stack.hpp"

namespace fj::detail {

inline constexpr unsigned k_mode_tsan = 1U;
inline constexpr unsigned k_mode_stack_checks = 2U;
inline constexpr unsigned k_mode_stack_poisoning = 4U;

// This translation unit's layout and protocol bits.
inline constexpr unsigned k_build_mode = (tsan_build ? k_mode_tsan : 0U) |
                                         (k_stack_checks ? k_mode_stack_checks : 0U) |
                                         (k_stack_poisoning ? k_mode_stack_poisoning : 0U);

// What a pool's constructor hands to the compiled library.
struct build_mode {
  unsigned bits = 0;
  // The user's chaos hook (chaos_point) when compiled with FJ_CHAOS, else null: the scheduler loop calls it
  // at its publication points.
  void (*chaos)() noexcept = nullptr;
};

// The modes of the translation unit that calls it (an inline function: it is compiled where it is used).
inline build_mode this_build_mode() noexcept {
#if defined(FJ_CHAOS) && FJ_CHAOS
  return {k_build_mode, &chaos_point};
#else
  return {k_build_mode, nullptr};
#endif
}

// The bits the library itself was compiled with (src/pool_core.cpp).
unsigned library_build_mode() noexcept;

}  // namespace fj::detail
