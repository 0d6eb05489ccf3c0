#pragma once
// The type-erased state every task carries at the start of its promise: who its parent is, which segmented
// stack it lives on, its split join counter and its first-exception slot. The protocol that uses these fields
// is docs/protocols/join.md; the ownership of `home` and who writes it is docs/protocols/stack.md.

#include <atomic>
#include <bit>
#include <coroutine>
#include <cstdint>
#include <cstring>
#include <exception>
#include <type_traits>

#include "forkjoin/detail/segmented_stack.hpp"

namespace fj::detail {

struct root_base;

// How a task was started; decides what its final suspend does (paper Algorithm 5, lines 7-12).
enum class task_kind : std::uint8_t {
  call,  // parent suspended at a call: resume it directly
  fork,  // parent pushed on the deque: pop it back, or join it implicitly if it was stolen
  root,  // started by sync_wait: signal the waiting thread
};

// Initial value K of the split join counter (join.md §2). The counter is unsigned arithmetic modulo 2^32 and
// returns to K exactly at the last arrival whatever K is; 0 lets the frame's constructor set it together with
// the zeroed fields next to it.
inline constexpr std::uint32_t k_join_init = 0;

// Whether a frame waits at its final suspend for children still running (join.md §4), and whether its body
// ended in a co_return with a value there. That value was computed before the implicit join, possibly from
// results the children had not written yet: finish() (detail/task_return.hpp) reports it, unless the body (or
// a child) threw.
enum class final_wait : std::uint8_t {
  no,          // the body still runs, or the frame finishes without waiting
  joining,     // a task<void>, joining implicitly
  value_task,  // a task<T> with T not void, joining implicitly (or, in checked builds, having forked since
               // its last join although nothing was stolen)
};

// What a task's final suspend must check before it may take the fast path, in eight bytes that it reads with
// one load (frame::state_word()): the fast path is taken exactly when they equal k_call_state or
// k_fork_state.
struct frame_state {
  task_kind kind = task_kind::call;
  // Set by the frame itself before it joins implicitly at its final suspend: the child that arrives last must
  // finish the frame (destroy it, continue its parent) instead of resuming it (join.md §4).
  final_wait at_final = final_wait::no;
  // Some parameter copy has a destructor to run when the frame is destroyed (set by the promise's
  // constructor, which sees the parameters). Without one, the final suspend's fast path only frees the
  // frame's memory and skips the indirect call to the coroutine's destroy function.
  bool has_destructors = false;
  // Set by fj::resume_on on the continuations it leaves in its worker's deque: it wrote their `home` itself,
  // and a thief must not overwrite it with the stack its victim has by then (stack.md "Where a frame
  // lives"). Keeps the frame off the final suspend's fast path, which only costs moved tasks' ancestors.
  bool left_behind = false;
  // Times this frame's continuation was stolen since its last join. Only the worker running the continuation
  // touches it: thieves increment it right after a successful steal, before resuming.
  std::uint32_t steals = 0;
};
static_assert(sizeof(frame_state) == sizeof(std::uint64_t), "frame_state must be read with one load");

// The two states that take the final suspend's fast path: a call or a fork, never stolen since the last join,
// without parameter destructors.
inline constexpr std::uint64_t k_call_state = std::bit_cast<std::uint64_t>(frame_state{});
inline constexpr std::uint64_t k_fork_state =
    std::bit_cast<std::uint64_t>(frame_state{.kind = task_kind::fork});

struct frame {
  union {
    // Kind call or fork: the parent's coroutine address (std::coroutine_handle<>::address()). The hot path
    // passes tasks around as coroutine addresses, not as frames: that address is what a resume function
    // receives and what a transfer jumps through, so nothing converts between the two (frame_of).
    void* parent_address;
    root_base* root;  // kind root
  };
  // The segmented stack this frame was allocated on. Not written when the frame is made (a store into every
  // new frame is measurable on fork-heavy code, docs/performance.md): only a frame whose continuation was
  // stolen, a root or a moved task needs it, and the first thief, sync_wait or resume_on writes it then
  // (stack.md "Where a frame lives"). Until then the frame's runner's own stack is its home.
  segmented_stack* home;

  // Split join counter (join.md §2). Starts at k_join_init; each child that returns to a stolen parent
  // subtracts 1, the parent subtracts (k_join_init - steals) at its join (all modulo 2^32). Whoever brings it
  // back to k_join_init continues the parent.
  std::atomic<std::uint32_t> joins{k_join_init};
  // First-exception slot: whoever wins this flag writes `exception`; losers drop theirs (join.md §5).
  // (Four bytes, not a bool: with joins it fills eight bytes that the constructor zeroes with one store.)
  std::atomic<std::uint32_t> exception_claimed{0};
  alignas(std::uint64_t) frame_state state;
  std::exception_ptr exception;
  // Checked builds only (k_stack_checks): a fork since the frame's last join, set by the fork awaiter and
  // cleared by the join, so that a task<T> returning without a join is reported even when nothing was
  // stolen (detail/task_return.hpp). Elsewhere an empty member that takes no room.
  struct unchecked {  // reads false, ignores writes
    constexpr unchecked& operator=(bool /*forked*/) noexcept { return *this; }
    constexpr explicit operator bool() const noexcept { return false; }
  };
  [[no_unique_address]] std::conditional_t<k_stack_checks, bool, unchecked> forked_since_join{};

  // parent/root is left for its writer (the fork/call awaiter or sync_wait), and home for its writers above:
  // each is written before anyone reads it, and skipping a store per task is measurable on fork-heavy code.
  // Checked builds set home to null, so that a read before its write fails at once.
  frame() noexcept {
    if constexpr (k_stack_checks) home = nullptr;
  }

  [[nodiscard]] std::coroutine_handle<> parent() const noexcept {
    return std::coroutine_handle<>::from_address(parent_address);
  }

  [[nodiscard]] std::uint64_t state_word() const noexcept { return std::bit_cast<std::uint64_t>(state); }
  // One eight-byte store (not one per field), so that state_word() can be forwarded from it.
  void set_state_word(std::uint64_t word) noexcept {
    std::memcpy(static_cast<void*>(&state), &word, sizeof word);
  }

  // The coroutine whose promise this frame is. Every promise is a frame at offset 0 with the frame's
  // alignment (static_assert in task.hpp), so the compiler's own promise-to-frame mapping, the one
  // coroutine_handle<P>::from_promise uses, applies without knowing P; no handle needs to be stored.
  [[nodiscard]] std::coroutine_handle<> handle() const noexcept {
    return std::coroutine_handle<>::from_address(
        __builtin_coro_promise(const_cast<frame*>(this), alignof(frame), true));
  }
};

// The frame of the coroutine `h` (the inverse of frame::handle()).
//
// Why the runtime passes tasks around as coroutine handles (parent links, deque items, the handle a task
// function returns, the slow paths a resume function calls) and not as frames: the handle is the resume
// function's own argument, which it keeps in its one callee-saved register anyway (it addresses the
// coroutine's locals through it), and it is what a transfer jumps through. A frame is the handle's address
// plus a constant: passing frames costs an instruction at every conversion, and a frame computed at a resume
// function's entry and needed after a call takes a second callee-saved register, saved and restored on every
// resume of every task (docs/experiments.md, "One callee-saved register").
[[gnu::always_inline]] inline frame* frame_of(std::coroutine_handle<> h) noexcept {
  return static_cast<frame*>(__builtin_coro_promise(h.address(), alignof(frame), false));
}

}  // namespace fj::detail
