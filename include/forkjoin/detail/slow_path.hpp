#pragma once
// FJ_DETAIL_SLOW_PATH marks the out-of-line slow paths that a task's resume function may call (a stolen join,
// a frame finishing after a steal, a stacklet emptied, the deque growing). A coroutine's resume function
// saves every callee-saved register it uses anywhere, on every resume; a value that must survive one of these
// calls would otherwise take one more such register for all resumes of every task. With clang on x86-64 the
// slow paths use the preserve_most convention instead (the callee saves what it clobbers), so the hot path
// keeps its values in scratch registers across them, and a task's resume function saves fewer registers on
// every resume (docs/experiments.md).
//
// Only for noexcept functions: LLVM lets a landing pad rely on the registers the callee preserves, but the
// unwinder (libgcc) restores only the base ABI's callee-saved registers when an exception passes through
// (llvm/llvm-project#112943), so no exception may leave such a function. The throwing work is done by
// normal-convention callees whose exceptions are caught before they reach a preserve_most frame's caller
// (segmented_stack::try_allocate_slow catches allocate_slow's; deque::make_ring_for_growth catches its own),
// and the failure is reported by return value.

#if defined(__clang__) && defined(__x86_64__)
#if __has_cpp_attribute(clang::preserve_most)
#define FJ_DETAIL_SLOW_PATH [[gnu::noinline, clang::preserve_most]]
#endif
#endif

#ifndef FJ_DETAIL_SLOW_PATH
#define FJ_DETAIL_SLOW_PATH [[gnu::noinline]]
#endif
