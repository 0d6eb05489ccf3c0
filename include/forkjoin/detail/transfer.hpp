#pragma once
// How control passes from one task to the next. Normally by symmetric transfer: await_suspend returns the
// next coroutine's handle and the compiler makes the jump a tail call, so any number of transfers uses no OS
// stack. g++-12 does not make that tail call at -O0, nor under ASan or TSan (docs/traps.md "g++ and symmetric
// transfer"): there every transfer nests a call, and the OS stack grows with the number of transfers until
// the worker returns to its scheduler loop. For those builds the runtime trampolines instead: the next handle
// is parked in a thread-local and the worker's loop resumes it, which costs a return and a loop iteration per
// transfer but keeps the stack flat. FJ_TRAMPOLINE=0/1 overrides the choice. The choice is made per
// translation unit, so the scheduler loop always drains the parked handle: tasks compiled in either mode can
// run on a scheduler compiled in the other.

#include <coroutine>

#ifndef FJ_TRAMPOLINE
#if defined(__GNUC__) && !defined(__clang__) && \
    (!defined(__OPTIMIZE__) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__))
#define FJ_TRAMPOLINE 1
#else
#define FJ_TRAMPOLINE 0
#endif
#endif

namespace fj::detail {

inline constexpr bool trampoline_transfers = FJ_TRAMPOLINE != 0;

// The handle parked by transfer() in trampoline mode.
inline constinit thread_local void* tls_next = nullptr;

// What an await_suspend returns to pass control to `next` (which may be std::noop_coroutine(): back to the
// scheduler).
[[gnu::always_inline]] inline std::coroutine_handle<> transfer(std::coroutine_handle<> next) noexcept {
  if constexpr (trampoline_transfers) {
    if (next.address() != std::noop_coroutine().address()) tls_next = next.address();
    return std::noop_coroutine();
  } else {
    return next;
  }
}

// Resumes `h` from a scheduler loop, and then whatever it parked, until control comes back with nothing to
// run. Drains in every mode (see above); without trampolining the thread-local stays null, one load per
// scheduled task.
inline void run_from_scheduler(std::coroutine_handle<> h) {
  h.resume();
  while (void* next = tls_next) {
    tls_next = nullptr;
    std::coroutine_handle<>::from_address(next).resume();
  }
}

}  // namespace fj::detail
