#pragma once
// Which worker owns which segmented stack (docs/protocols/stack.md "Ownership between workers" and "Where a
// frame lives"): a worker allocates only on the stack it owns; a join hands a stack to the worker that
// continues the frame on it, and a worker whose stack holds a frame someone else will continue gives it up.
// The join (join.hpp), the steal (steal.hpp), resume_on and the scheduler move stacks only through these.

#include <atomic>
#include <new>
#include <utility>

#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/worker_context.hpp"

namespace fj::detail {

// Makes `s` the stack this worker allocates on, and publishes it for thieves.
inline void use_stack(worker_context* w, segmented_stack* s) noexcept {
  tls_stack = s;
  // relaxed: ordered for thieves by the deque (stack.md "Where a frame lives"): a thief reads it after its
  // acquire of bottom_, which pairs with the push of the continuation it claims (so it sees the stack of that
  // push or a newer one), and before its CAS on top_, which the failed pop that precedes any newer value here
  // acquires (so it sees no newer one).
  w->stack.store(s, std::memory_order_relaxed);  // model: worker.stack.publish
}

// A thief's reading of the stack its victim allocates on: between its acquire of the victim's bottom_ and its
// CAS on top_ (deque_thief::steal's before_claim), where it is the stack of the continuation it claims.
inline segmented_stack* stack_of(const worker_context& victim) noexcept {
  // relaxed: see use_stack().
  return victim.stack.load(std::memory_order_relaxed);  // model: worker.stack.read
}

// A worker that adopts a frame's stack at a join must have emptied its own. What leaves frames there is a
// frame created and not freed in LIFO order across the fork and its join: user misuse, so the message names
// it instead of calling it an internal error.
[[noreturn, gnu::cold, gnu::noinline]] inline void frames_left_at_join() noexcept {
  fatal(
      "a worker taking over a stack at a join still had frames on its own: an fj::task created and kept "
      "unstarted, or an fj::scratch array kept alive, across a fork and its join leaves them there "
      "(docs/misuse.md)");
}

// Adopt (rule 5): make `home` this worker's stack. The stack held until now must be empty: it becomes the
// spare (or is freed).
inline void take_stack(segmented_stack* home) noexcept {
  // fj::scratch arrays abandoned on `home` by a thief before this join are on top of it now (stack.md
  // "Abandoned blocks").
  home->release_abandoned_on_top();
  segmented_stack* current = tls_stack;
  if (current == home) return;
  if (!current->empty()) frames_left_at_join();
  worker_context* w = tls_worker;
  if (w->spare == nullptr) {
    w->spare = current;
  } else {
    delete current;
  }
  use_stack(w, home);
}

// Release (rule 4): give up the current stack (another worker will adopt it when it resumes the frame on it)
// and continue on an empty one: the spare if there is one.
inline void give_up_stack() noexcept {
  worker_context* w = tls_worker;
  segmented_stack* fresh = std::exchange(w->spare, nullptr);
  if (fresh == nullptr) {
    fresh = new (std::nothrow) segmented_stack();
    // No way to report it from here: the frame that needs the stack is suspended and the worker may not
    // continue on the stack it gives up.
    if (fresh == nullptr) fatal("out of memory: a worker could not allocate an empty stack to continue on");
  }
  use_stack(w, fresh);
}

}  // namespace fj::detail
