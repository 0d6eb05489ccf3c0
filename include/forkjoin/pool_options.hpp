#pragma once
// Construction options shared by forkjoin's pools, and the per-worker statistics they report.

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace fj {

// One worker per hardware thread (at least one). Compiled into the library (src/pool_core.cpp), so that this
// header needs no <thread>.
[[nodiscard]] std::size_t default_worker_count() noexcept;

// Whether workers are pinned to cores. Pinning (with NUMA-weighted victims, paper Eq. 6) pays on a dedicated
// multi-socket machine; on a shared machine it keeps the OS from moving a worker away from other load, which
// made pinned pools markedly slower than unpinned ones on our loaded CI machines, so it is opt-in.
enum class pin_policy {
  none,   // let the OS place workers; victims uniform at random
  cores,  // worker i on core i when there are no more workers than cores (else as none); victims by Eq. 6
};

// pool_options::stack_budget without a limit.
inline constexpr std::size_t unlimited_stack_budget = ~std::size_t{0};

// The default stack budget: 1 GiB of stacklet memory per stack (docs/protocols/stack.md "Stack budget"). Far
// more than real recursion needs (10^6 nested frames of 200 bytes fit in a quarter of it), small enough that
// runaway recursion ends in fj::stack_budget_error instead of exhausting the machine's memory.
inline constexpr std::size_t default_stack_budget = std::size_t{1} << 30;

// The default linger: long enough that a thread calling parallel algorithms on mid-sized inputs back to back
// (tens to hundreds of microseconds each, with its own work in between) finds a worker awake at each call.
inline constexpr std::chrono::microseconds default_linger{200};

struct pool_options {
  std::size_t workers = default_worker_count();  // must be at least 1
  // OS stack of each worker thread; 0 keeps the system default. Tasks do not run on it (their frames live on
  // segmented stacks), so a small stack such as 64 KiB is enough unless tasks call deep ordinary recursion or
  // ordinary functions with large locals, or (g++-12, which copies a task's by-value arguments through it)
  // pass large objects by value.
  std::size_t thread_stack_size = 0;
  pin_policy pinning = pin_policy::none;
  // The most stacklet memory (bytes, headers included) any one segmented stack of this pool may hold: a task
  // whose frame would take its stack beyond it is not created, and fj::stack_budget_error is thrown where it
  // was forked or called. At least 4096 (one stacklet); unlimited_stack_budget disables the check.
  std::size_t stack_budget = default_stack_budget;
  // How long a worker of a lazy pool keeps looking for work, after it last ran some or was woken, before it
  // sleeps (docs/protocols/sleep.md, step 3). While one is awake, a parallel algorithm called from ordinary
  // code enters the pool without a wake-up, and so goes parallel on much smaller inputs (docs/algorithms.md
  // "Grain"). The price is CPU time: each such worker polls for work, yielding its core now and then, for up
  // to this long after every burst of work. Zero: a worker sleeps after a short spin. Negative values are
  // refused (fj::invalid_config_error). Busy pools (which never sleep) and unit pools ignore it.
  std::chrono::microseconds linger = default_linger;
};

// Per-worker counters, cheap enough to be always on: each is written only by its worker, on the scheduler's
// slow paths (never on a fork or a join).
struct worker_stats {
  std::uint64_t steal_attempts = 0;  // deques this worker tried to steal from
  std::uint64_t steals = 0;          // continuations and spawned children it stole
  std::uint64_t roots_run = 0;       // root tasks (sync_wait) it finished
  // Child exceptions dropped because another was already captured, or because an fj::scope was destroyed
  // during unwinding (those dropped on a thread that is not a worker are counted on the first worker).
  std::uint64_t exceptions_dropped = 0;
  std::uint64_t submissions_run = 0;     // tasks it took from its submission queue (roots and resume_on)
  std::uint64_t sleeps = 0;              // times it went to sleep (lazy and unit pools)
  std::uint64_t nanoseconds_asleep = 0;  // total time asleep
  std::uint64_t forks_run_as_calls = 0;  // forks whose parent could not be pushed (the deque could not grow)
  // Process-wide fences (membarriers) this worker issued while stealing: at most one per victim at a time
  // (docs/protocols/deque.md, "One heavy fence per steal"); 0 where asymmetric fences are off.
  std::uint64_t heavy_fences = 0;
  // Steal attempts that found work but left it because another thief was claiming from that victim.
  std::uint64_t steals_contended = 0;
  // Children spawned with fj::scope that this worker took back from the thief of one of its own children
  // while it waited at a sync (docs/protocols/spawn.md "Waiting at a sync"); they are not in `steals`.
  std::uint64_t steals_at_sync = 0;
};

}  // namespace fj
