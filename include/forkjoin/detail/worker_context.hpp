#pragma once
// Per-worker state and the two thread-locals the hot path reads: the worker's deque (fork pushes its parent,
// a returning child pops it) and the segmented stack that new frames are allocated on.

#include <atomic>
#include <coroutine>
#include <cstddef>
#include <cstdint>

#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/submission.hpp"
#include "forkjoin/ext/deque.hpp"
#include "forkjoin/ext/event_count.hpp"
#include "forkjoin/ext/submission_queue.hpp"

namespace fj::detail {

class pool_core;
struct spawn_record;

// Counters written only by their worker (relaxed load + store, no read-modify-write) and read by anyone.
struct worker_counters {
  std::atomic<std::uint64_t> steal_attempts{0};
  std::atomic<std::uint64_t> steals{0};
  std::atomic<std::uint64_t> roots_run{0};
  std::atomic<std::uint64_t> submissions_run{0};
  std::atomic<std::uint64_t> exceptions_dropped{0};
  std::atomic<std::uint64_t> sleeps{0};
  std::atomic<std::uint64_t> nanoseconds_asleep{0};
  std::atomic<std::uint64_t> forks_run_as_calls{0};
  std::atomic<std::uint64_t> heavy_fences{0};
  std::atomic<std::uint64_t> steals_contended{0};
  std::atomic<std::uint64_t> steals_at_sync{0};

  static void add(std::atomic<std::uint64_t>& c, std::uint64_t n) noexcept {
    // relaxed: single writer; readers only want an eventually consistent statistic.
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);  // model: none (statistic)
  }

  static void bump(std::atomic<std::uint64_t>& c) noexcept {
    // relaxed: single writer; readers only want an eventually consistent statistic.
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);  // model: none (statistic)
  }
};

struct worker_context {
  explicit worker_context(pool_core* p, std::size_t i)
      : pool(p), index(i), owner(queue.owner()), spawned_owner(spawned.owner()) {}

  pool_core* pool;
  std::size_t index;
  std::size_t group = 0;  // NUMA group (lazy pool: one awake thief per group)
  // A pool without thieves (unit_pool): fj::scope runs each spawned child at once, in the serial order.
  bool spawns_inline = false;
  // Continuations, as coroutine handles (frame_of says why not frames).
  fj::deque<std::coroutine_handle<>> queue;
  fj::deque_owner<std::coroutine_handle<>> owner;
  // Children spawned by plain functions through fj::scope (child stealing, docs/protocols/spawn.md): a
  // deque of their own, so that a coroutine's return never pops a spawned child as its parent.
  fj::deque<spawn_record*> spawned;
  fj::deque_owner<spawn_record*> spawned_owner;
  // Tasks handed to this worker by other threads (paper III-D1); only this worker pops.
  fj::submission_queue<submission> inbox;
  // Where this worker sleeps (lazy and unit pools): notified by submitters to `inbox`, and by a thief that
  // needs another worker awake (sleep.md). Its own lines, as for the fields below: wakers read it, its
  // worker writes it around every sleep.
  alignas(128) fj::event_count sleep;
  // Set by a waker that wakes this worker only to keep a thief awake (sleep.md "Lingering"): it then does
  // not linger after the wake-up. Relaxed both ways: a hint, read once after each wake-up.
  std::atomic<bool> woken_as_thief{false};
  // An empty stack kept for the next steal, so that stealing does not call the allocator in steady state.
  // With `stack` on lines that thieves read in every steal from this worker and that its owner seldom writes.
  alignas(128) segmented_stack* spare = nullptr;
  // The stack this worker allocates on (its tls_stack), published for thieves: a continuation in this
  // worker's deque that was not stolen since its last join lives on it, and the thief that steals it writes
  // it into the frame's `home` (stack.md "Where a frame lives"). Written only through use_stack()
  // (stack_ownership.hpp).
  std::atomic<segmented_stack*> stack{nullptr};
  // Written by this worker on every steal attempt.
  alignas(128) worker_counters counters;
  // A lingering worker (pool_options::linger) sleeps once the steady clock, in nanoseconds, passes this;
  // linger_armed: the idle period began after work, so the linger starts when the spin ends. Only its
  // worker reads and writes them.
  std::uint64_t linger_until_ns = 0;
  bool linger_armed = false;
};

// The worker running on this thread, or null on ordinary threads.
inline constinit thread_local worker_context* tls_worker = nullptr;
// tls_worker->owner, kept here as well so that a fork's push and a return's pop reach the deque with one load
// less.
inline constinit thread_local fj::deque_owner<std::coroutine_handle<>> tls_owner =
    fj::deque_owner<std::coroutine_handle<>>::unbound();
// tls_worker->spawned_owner where fj::scope queues its children, so that a scope finds it with one load;
// unbound on ordinary threads and on workers of pools without thieves (unit_pool), where a spawn runs
// elsewhere.
inline constinit thread_local fj::deque_owner<spawn_record*> tls_spawner =
    fj::deque_owner<spawn_record*>::unbound();
// The result pointer of the next task created on this thread (promise<T>::out_): fj::fork and fj::call set it
// right before they call the task function; null for a child whose result is discarded.
inline constinit thread_local void* tls_next_out = nullptr;
// The stack that frames created on this thread are allocated on. On a worker: the stack it owns now. On an
// ordinary thread: segmented_stack::no_worker() (every allocation throws fj::not_in_worker_error), except
// while sync_wait creates a root frame on the root's own stack.
inline constinit thread_local segmented_stack* tls_stack = segmented_stack::no_worker();

}  // namespace fj::detail
