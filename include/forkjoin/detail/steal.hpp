#pragma once
// The thief's half of the deque and stack protocols, as the scheduler loop (src/scheduler.cpp) uses it:
// claiming a continuation from a victim's deque together with the stack it lives on, taking back the
// continuations resume_on left on a worker's own deque, and the bookkeeping a stolen frame needs before it
// runs (its steals count and its home). docs/protocols/deque.md and stack.md "Where a frame lives".

#include <coroutine>
#include <optional>

#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/stack_ownership.hpp"
#include "forkjoin/detail/worker_context.hpp"

namespace fj::detail {

// A continuation taken from a victim, and the stack its owner allocated on when it pushed it (null if
// unknown: a continuation left behind, whose home resume_on wrote).
struct stolen_continuation {
  std::coroutine_handle<> handle;
  segmented_stack* victim_stack = nullptr;
};

// Steals the oldest continuation from `victim`'s deque, counting the attempt in the thief's `counters`.
[[nodiscard]] inline std::optional<stolen_continuation> steal_from(worker_context& victim,
                                                                   worker_counters& counters) noexcept {
  // The victim's stack, read where the deque makes it the stack of the continuation we claim.
  segmented_stack* victim_stack = nullptr;
  auto stolen = victim.queue.thief().steal([&]() noexcept { victim_stack = stack_of(victim); });
  worker_counters::bump(counters.steal_attempts);
  if (stolen.heavy_fence) worker_counters::bump(counters.heavy_fences);
  if (stolen.status == fj::steal_status::contended) worker_counters::bump(counters.steals_contended);
  if (!stolen) return std::nullopt;
  return stolen_continuation{stolen.value, victim_stack};
}

// Steals the oldest child spawned with fj::scope from `victim` (child stealing, docs/protocols/spawn.md), or
// null; counted as steal_from counts.
[[nodiscard]] inline spawn_record* steal_spawned(worker_context& victim, worker_counters& counters) noexcept {
  auto thief = victim.spawned.thief();
  if (thief.empty()) return nullptr;  // a hint, so that a victim without spawned children costs no count
  auto stolen = thief.steal();
  worker_counters::bump(counters.steal_attempts);
  if (stolen.heavy_fence) worker_counters::bump(counters.heavy_fences);
  if (stolen.status == fj::steal_status::contended) worker_counters::bump(counters.steals_contended);
  if (!stolen) return nullptr;
  return stolen.value;
}

// A task that moved itself away with resume_on can leave continuations on its old worker's deque: those of
// its strand's ancestors that were not stolen. The worker takes the newest one from the bottom, as if the
// moved task had returned to it, and runs it as a steal (its steals count goes up: the moved task's return
// comes through the join counter, join.md §6). Taking the oldest from the top instead would leave newer
// continuations of the strand below the ones the resumed task pushes next, and a forked child finishing
// there would pop one of them as its own parent's.
// Their frames' home was written by resume_on (left_behind) or by an earlier steal, so no stack comes with
// them. Empty if thieves took them meanwhile.
[[nodiscard]] inline std::optional<stolen_continuation> take_left_behind(worker_context& self) {
  std::optional<std::coroutine_handle<>> const left = self.owner.pop();
  if (!left) return std::nullopt;
  return stolen_continuation{*left, nullptr};
}

// Makes the calling worker the runner of a stolen continuation: steals and home are owned by whoever runs it
// (frame.hpp). The first steal since the frame's last join finds it on the stack its owner had (stack.md
// "Where a frame lives"), unless resume_on wrote home already.
inline void claim_stolen(const stolen_continuation& stolen) noexcept {
  frame* const f = frame_of(stolen.handle);
  if (f->state.steals++ == 0 && !f->state.left_behind) {
    if (stolen.victim_stack == nullptr) internal_error("a continuation left in a deque without its home");
    f->home = stolen.victim_stack;
  }
}

}  // namespace fj::detail
