#pragma once
// Plain-function spawns (fj::scope, child stealing; docs/protocols/spawn.md): the record of one spawned call,
// the state of the scope it belongs to, and how a worker runs a record it took from another worker's deque.
// A record lives on the spawning worker's segmented stack from the spawn to the scope's sync, so that a spawn
// never calls the allocator; the call's arguments live in it until the call returns.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <utility>

#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/worker_context.hpp"

namespace fj::detail {

class scope_state;

struct spawn_record {
  spawn_record(void (*run_fn)(spawn_record*) noexcept, scope_state* s, spawn_record* previous) noexcept
      : run(run_fn), scope(s), older(previous) {}

  // Runs the call, hands its exception to the scope and destroys the record (the call and its arguments);
  // the memory stays until the scope's sync frees it.
  void (*run)(spawn_record* self) noexcept;
  scope_state* scope;
  spawn_record* older;  // the scope's previous record since its last sync (a list, newest first)
  // A record taken from the deque by another worker (a thief, or the owner of a waiting scope): null, then
  // that worker, published before it starts the call, then &k_returned once the call has returned. The
  // scope's owner reads it while it waits at its sync (leapfrog.hpp).
  std::atomic<const void*> runner{nullptr};
  // The runner's spawned.next_index() when it started the call: what it pushes while the call runs has this
  // index or a larger one. Written before `runner` is published, read after.
  std::int64_t runner_base = 0;
  // Checked builds: 1 + the spawn depth of the code that spawned it (spawn.md "The stack bound").
  std::uint32_t depth = 0;
};

// What spawn_record::runner holds once the call has returned: no worker's address.
inline constexpr char k_returned = 0;

// Thread-local state of plain spawns: the innermost scope open on this thread (scopes nest by C++ scoping;
// null while a scope runs its own children, which may not spawn into it or into a scope outside it), and, in
// checked builds, the spawn depth of the code running on this thread.
inline constinit thread_local scope_state* tls_scope = nullptr;
inline constinit thread_local std::uint32_t tls_spawn_depth = 0;

// What fj::scope keeps apart from its spawning templates: the records since the last sync, how many thieves
// took and have finished, and the first exception.
class scope_state {
 public:
  // Called by whoever ran a child that threw: the first exception is kept for the sync, later ones are
  // dropped and counted in the running worker's statistics.
  void capture(std::exception_ptr e) noexcept {
    // relaxed: only one thread may win; the winner's write of exception_ reaches the owner through the
    // release increment of stolen_done_ (a thief) or program order (the owner itself).
    if (exception_claimed_.exchange(1, std::memory_order_relaxed) == 0) {  // model: spawn.exception.claim
      exception_ = std::move(e);
    } else if (worker_context* w = tls_worker) {
      worker_counters::bump(w->counters.exceptions_dropped);
    }
  }

  // A thief has finished one of this scope's records. The last use of the scope by a thief: once the owner
  // sees the count it may return from the sync and free everything.
  void stolen_finished() noexcept {
    // release: pairs with the acquire load in the owner's wait (leapfrog.hpp): the child's result, its
    // exception and its frees happen before the sync returns.
    stolen_done_.fetch_add(1, std::memory_order_release);  // model: spawn.stolen_done.add
  }

  // The deque this scope's children go to; unbound on an ordinary thread and on a pool without thieves.
  fj::deque_owner<spawn_record*> spawner_ = tls_spawner;
  scope_state* outer_ = tls_scope;  // the scope open on this thread before this one
  // Records since the last sync, newest first; those the owner pops back at the sync are unlinked as they
  // run, so what is left when a pop fails are the records thieves took, the oldest ones.
  spawn_record* newest_ = nullptr;
  std::uint32_t stolen_ = 0;  // records thieves took, counted at the sync
  std::atomic<std::uint32_t> stolen_done_{0};
  std::atomic<std::uint32_t> exception_claimed_{0};
  std::exception_ptr exception_;
};

// Runs a record that this worker took from another worker's deque (its scheduler loop, or a wait at a sync),
// or that was left in its own deque. The record and its scope must not be touched after stolen_finished().
inline void run_taken_record(worker_context& w, spawn_record* r) noexcept {
  r->runner_base = w.spawned_owner.next_index();
  // release: pairs with the acquire load in the owner's wait (leapfrog.hpp), publishing runner_base.
  r->runner.store(&w, std::memory_order_release);  // model: spawn.runner.publish
  scope_state* const scope = r->scope;
  std::uint32_t const saved_depth = tls_spawn_depth;
  if constexpr (k_stack_checks) tls_spawn_depth = r->depth;
  r->run(r);  // destroys the call and its arguments; the record's own fields stay until the sync
  if constexpr (k_stack_checks) tls_spawn_depth = saved_depth;
  // release: pairs with the acquire load in the owner's accept test (leapfrog.hpp): what this worker pushes
  // from now on is not the call's work, and an owner that takes such an item sees this store first.
  r->runner.store(&k_returned, std::memory_order_release);  // model: spawn.runner.done
  scope->stolen_finished();
}

}  // namespace fj::detail
