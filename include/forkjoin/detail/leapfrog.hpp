#pragma once
// What a worker does at an fj::scope's sync while children that thieves took are still running
// (docs/protocols/spawn.md "Waiting at a sync"): it never blocks, and it runs only work that belongs to those
// children, taken back from the deques of the workers running them. So its OS stack holds, below the sync,
// only descendants of the waiting scope, and it grows no deeper than the serial program's would (spawn.md
// "The stack bound").

#include <atomic>
#include <cstdint>
#include <thread>

#include "forkjoin/detail/cpu_relax.hpp"
#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/slow_path.hpp"
#include "forkjoin/detail/spawn_record.hpp"
#include "forkjoin/detail/worker_context.hpp"

namespace fj::detail {

// Takes one item from the deque of the worker running the stolen record `r`, if that item is part of r's
// call, and runs it here. False if there was none.
inline bool take_back_from_thief(worker_context& self, spawn_record* r) {
  // acquire: pairs with the release stores in run_taken_record(), so runner_base is its runner's.
  const void* const running = r->runner.load(std::memory_order_acquire);  // model: spawn.runner.read
  if (running == nullptr || running == &k_returned || running == &self) return false;
  // Not const: the thief handle of its deque is taken from it.
  auto* const runner = const_cast<worker_context*>(static_cast<const worker_context*>(running));
  std::int64_t const base = r->runner_base;
  auto thief = runner->spawned.thief();
  // Hints, so that a deque holding only older work costs no fence: its oldest item is below base.
  if (thief.empty() || thief.oldest_index() < base) return false;
  auto taken = thief.steal_if([&](std::int64_t index) noexcept {
    // An item at base or above, pushed while r's call still ran, is part of that call (spawn.md "Waiting at a
    // sync"). acquire: pairs with the release store of &k_returned in run_taken_record(); read after the
    // deque's acquire of the runner's bottom, so an item pushed after the call returned shows it here.
    return index >= base &&
           r->runner.load(std::memory_order_acquire) != &k_returned;  // model: spawn.runner.accept
  });
  worker_counters::bump(self.counters.steal_attempts);
  if (taken.heavy_fence) worker_counters::bump(self.counters.heavy_fences);
  if (!taken) return false;
  spawn_record* const item = taken.value;
  if constexpr (k_stack_checks) {
    // Every record this worker runs on top of the sync is deeper in the spawn tree than the code waiting.
    if (item->depth <= tls_spawn_depth) internal_error("a sync took back a record that is not a descendant");
  }
  worker_counters::bump(self.counters.steals_at_sync);
  run_taken_record(self, item);
  return true;
}

// The scope's owner has run every child left in its deque; the stolen_ children from newest_ on were taken
// by thieves. Returns once they have all finished.
FJ_DETAIL_SLOW_PATH inline void wait_for_stolen(scope_state& s) {
  worker_context& self = *tls_worker;  // the sync runs on the scope's own worker
  std::uint32_t idle_rounds = 0;
  // acquire: pairs with the release increments in stolen_finished(): the children's writes happen before
  // the sync returns.
  while (s.stolen_done_.load(std::memory_order_acquire) != s.stolen_) {  // model: spawn.stolen_done.wait
    bool worked = false;
    spawn_record* r = s.newest_;
    for (std::uint32_t i = 0; i < s.stolen_ && !worked; ++i, r = r->older) {
      worked = take_back_from_thief(self, r);
    }
    if (worked) {
      idle_rounds = 0;
    } else if (++idle_rounds % 64 == 0) {
      // Oversubscribed: the thieves may need this core.
      std::this_thread::yield();
    } else {
      cpu_relax();
    }
  }
}

}  // namespace fj::detail
