// The scheduler loop every worker of a pool runs (paper III-D): continuations left behind on its own deque,
// then its inbox, then the pool's shared queue, then stealing; when none has work, the idle policy (spin, or
// sleep by the protocol of docs/protocols/sleep.md). Compiled into the library: nothing here is on a fork's
// or a join's path.

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <coroutine>
#include <cstdint>
#include <optional>
#include <thread>

#include "forkjoin/detail/atomics.hpp"
#include "forkjoin/detail/cpu_relax.hpp"
#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/spawn_record.hpp"
#include "forkjoin/detail/stack_ownership.hpp"
#include "forkjoin/detail/steal.hpp"
#include "forkjoin/detail/transfer.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "pool_engine.hpp"

namespace fj::detail {

void pool_engine::run(worker_context& w) {
  tls_worker = &w;
  tls_owner = w.owner;
  if (!w.spawns_inline) tls_spawner = w.spawned_owner;
  // Thieves' fences then interrupt this worker's core alone (deque.md "Interrupting the victim's core only").
  w.owner.bind_thread();
  w.spawned_owner.bind_thread();
  // Every stack this worker grows (its own, adopted ones, roots' and fresh ones after steals) is grown on
  // this thread, so the pool's budget applies to all of them.
  tls_stack_budget = stack_budget_;
  use_stack(&w, new segmented_stack());
  pin(w);
  std::uint32_t idle_rounds = 0;
  while (true) {
    // Continuations left on our own deque (a task moved away with resume_on) run before any submission: a
    // task taken from the inbox must start on an empty deque, or a forked child among them would pop one of
    // those continuations at its end as if it were its own parent's (join.md §6).
    if (!w.owner.empty()) {
      if (resume_left_behind(w)) idle_rounds = 0;
      continue;
    }
    // Spawned children left in our own deque by a scope whose sync runs elsewhere (scope.hpp says which
    // misuse that is): they run here, as a thief would run them.
    if (!w.spawned_owner.empty()) {
      if (std::optional<spawn_record*> const left = w.spawned_owner.pop()) {
        run_spawned(w, *left);
        idle_rounds = 0;
      }
      continue;
    }
    if (submission* s = w.inbox.pop()) {
      run_submission(w, s);
      idle_rounds = 0;
      continue;
    }
    if (submission* s = shared_.take()) {
      run_submission(w, s);
      idle_rounds = 0;
      continue;
    }
    // Priority tasks (priority.md §10): after everything above, before stealing.
    if (run_priority(w)) {
      idle_rounds = 0;
      continue;
    }
    if (try_steal(w)) {
      idle_rounds = 0;
      continue;
    }
    // acquire: pairs with the release store in stop_workers().
    if (stop_.load(std::memory_order_acquire)) break;
    idle_rounds = idle(w, idle_rounds) ? k_spin_rounds - k_awake_rounds : next_idle_round(idle_rounds);
  }
  if (!tls_stack->empty()) internal_error("a worker stopped with frames on its stack");
  delete tls_stack;
  delete w.spare;
  w.spare = nullptr;
  use_stack(&w, segmented_stack::no_worker());
  w.spawned_owner.unbind_thread();
  w.owner.unbind_thread();
  tls_owner = fj::deque_owner<std::coroutine_handle<>>::unbound();
  tls_spawner = fj::deque_owner<spawn_record*>::unbound();
  tls_worker = nullptr;
}

void pool_engine::pin(worker_context& w) noexcept {
  if (!pinned_) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(placement_.cpu(w.index), &set);
  // Best effort: a failure (restricted cpuset) leaves the worker unpinned.
  (void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

// ---- the lazy pool's accounting (sleep.md "The lazy pool's rule", detail/lazy_accounting.hpp) ----

void pool_engine::become_active(worker_context& w) noexcept {
  accounting_->become_active(w.group, [&](std::size_t group) { wake_a_thief(group, &w); });
}

void pool_engine::become_thief(worker_context& w) noexcept { accounting_->become_thief(w.group); }

bool pool_engine::work_visible(worker_context& w) const noexcept {
  if (!w.inbox.empty() || !w.owner.empty() || !w.spawned_owner.empty()) return true;
  if (shared_.maybe_pending()) return true;
  if (!steal_) return false;
  for (const auto& other : workers_) {
    if (!other->queue.thief().empty() || !other->spawned.thief().empty()) return true;
  }
  return false;
}

bool pool_engine::sleep(worker_context& w) {
  accounting_->leave(w.group);
  chaos_point();
  auto const key = w.sleep.prepare_wait();
  // relaxed: ordered before the re-check by the fence below, which pairs with the waker's fence in
  // wake_one() (store buffering, sleep.md "The sleeper count"): either our re-check sees what the waker
  // published, or its load of this count (and then of our event count) sees this registration.
  sleepers_.n.fetch_add(1, std::memory_order_relaxed);
  // seq_cst fence: pairs with the fences in wake_a_sleeper() and wake_a_thief() (store buffering): either
  // the re-check below sees their push or update, or they see this registration and notify us.
  seq_cst_fence();
  // Re-check after announcing ourselves (event count protocol): work or stop that arrived before the
  // announcement is seen here; anything later notifies us.
  // acquire: pairs with the release store in stop_workers().
  if (work_visible(w) || stop_.load(std::memory_order_acquire)) {
    w.sleep.cancel_wait();
    leave_sleepers();
  } else if (priority_visible() || accounting_->must_stay_awake(w.group)) {
    // A priority group holds a task, which this worker may not be able to see (the relaxed storage hides its
    // pusher's newest items until the pusher pops them, priority.md §10): stay awake as the awake thief
    // does (yield, then spin k_awake_rounds), not by running this protocol again on every round.
    w.sleep.cancel_wait();
    leave_sleepers();
    // The group's last awake thief keeps looking, but lets others run: it may share a core with the active
    // worker that woke it, and spinning on would keep that worker off the core for a whole time slice.
    std::this_thread::yield();
    accounting_->come_back(w.group);
    // It spins k_awake_rounds more before it next tries to sleep: this protocol costs shared RMWs, a fence,
    // a look at every deque and a system call, too much to pay on every failed steal; the yield comes often
    // enough still for a worker sharing its core.
    return true;
  } else {
    worker_counters::bump(w.counters.sleeps);
    std::uint64_t const t0 = steady_nanoseconds();
    w.sleep.wait(key);
    leave_sleepers();
    std::uint64_t const woke = steady_nanoseconds();
    worker_counters::add(w.counters.nanoseconds_asleep, woke - t0);
    // A worker woken for work lingers as after work it found itself, so that one woken ahead of it (a
    // prewake, or a root that its caller withdrew) is still awake when the next comes; one woken only to
    // keep a thief awake stays awake by that rule for as long as work is active, and no longer. relaxed:
    // the waker's store is ordered before its notify, which this wake-up read (acquire).
    bool const as_thief = w.woken_as_thief.load(std::memory_order_relaxed);
    if (as_thief) w.woken_as_thief.store(false, std::memory_order_relaxed);
    w.linger_until_ns = as_thief ? 0 : woke + linger_ns_;
  }
  accounting_->come_back(w.group);
  return false;
}

bool pool_engine::idle(worker_context& w, std::uint32_t round) {
  if (idle_ == idle_policy::sleep) {
    if (round == 0) w.linger_armed = true;  // the last round found work
    // A lazy worker keeps trying for a while before it sleeps: work often arrives within microseconds.
    if (steal_ && round < k_spin_rounds) {
      cpu_relax();
      return false;
    }
    if (linger(w, round)) return false;
    return sleep(w);
  }
  if (round % 64 == 63) {
    std::this_thread::yield();  // oversubscribed pools: let the worker that has the work run
  } else {
    cpu_relax();
  }
  return false;
}

bool pool_engine::linger(worker_context& w, std::uint32_t round) noexcept {
  if (linger_ns_ == 0 || !steal_) return false;
  std::uint32_t const past = round - k_spin_rounds;
  if (past % k_linger_rounds != 0) {
    cpu_relax();
    return true;
  }
  std::uint64_t const now = steady_nanoseconds();
  // The first round past the spin starts the linger of an idle period that began after work. One that began
  // with staying awake (sleep()'s must-stay-awake branch restarts at k_spin_rounds - k_awake_rounds) keeps
  // the deadline it had; after a wake-up the rounds go on from where the worker slept, and sleep() has set
  // the deadline.
  if (past == 0 && w.linger_armed) {
    w.linger_armed = false;
    w.linger_until_ns = now + linger_ns_;
  }
  if (now >= w.linger_until_ns) return false;
  // Lets a thread that shares this core (the caller of a parallel algorithm, between its calls) run.
  std::this_thread::yield();
  return true;
}

// ---- running what the worker found ----

void pool_engine::run_submission(worker_context& w, submission* s) {
  frame* task = s->task;  // LIFETIME: `s` may die once the task runs
  become_active(w);
  take_stack(task->home);
  worker_counters::bump(w.counters.submissions_run);
  run_from_scheduler(task->handle());
  become_thief(w);
}

bool pool_engine::resume_left_behind(worker_context& w) {
  std::optional<stolen_continuation> const left = take_left_behind(w);
  if (!left) return false;  // thieves took them meanwhile
  run_stolen(w, *left);
  return true;
}

bool pool_engine::run_priority(worker_context& w) {
  // relaxed: a hint; a stale zero costs one round of the loop, and the re-check in sleep() scans anyway.
  if (priority_attached_.load(std::memory_order_relaxed) == 0) return false;
  for (auto& slot : priority_slots_) {
    // relaxed: only skips empty slots cheaply; the seq_cst load below decides.
    if (slot.source.load(std::memory_order_relaxed) == nullptr) continue;
    // relaxed: a hint, so that idle workers only read shared lines while the group has nothing queued; a
    // stale zero costs a round, and a worker stays awake while the count is not zero (priority_visible).
    if (slot.queued.load(std::memory_order_relaxed) == 0) continue;
    // seq_cst: store buffering with detach_priority_source(): either it sees this count and waits for us,
    // or our load of the source below sees its null.
    slot.users.fetch_add(1, std::memory_order_seq_cst);
    // seq_cst: as above.
    priority_source* const source = slot.source.load(std::memory_order_seq_cst);
    void* task = source != nullptr ? source->take(w.index) : nullptr;
    bool const ran = task != nullptr;
    if (ran) {
      // A batch of tasks under one become_active: the accounting's shared read-modify-writes once per batch,
      // not per task. Bounded, so that the inbox and the shared queue are looked at again soon.
      become_active(w);
      for (std::uint32_t n = 0; task != nullptr;
           task = ++n < k_priority_batch ? source->take(w.index) : nullptr) {
        source->run(task, w.index);
      }
      // The batch's credits go back to the group's counts (priority.md §10), while we are in the slot.
      source->settle(w.index);
      become_thief(w);
    }
    // release: pairs with the seq_cst (acquire) load in detach_priority_source(): our use of the source
    // happens before its owner destroys it. LIFETIME: the source may die after this.
    slot.users.fetch_sub(1, std::memory_order_release);
    if (ran) return true;
  }
  return false;
}

bool pool_engine::priority_visible() const noexcept {
  // relaxed: ordered after the pushes that matter by the fence in sleep() (priority.md §10).
  if (priority_attached_.load(std::memory_order_relaxed) == 0) return false;
  for (auto const& slot : priority_slots_) {
    // relaxed: ordered after a spawner's increment by the fences of the sleep protocol (priority.md §10).
    // The count lives in the pool, so reading it needs no entry into the slot.
    if (slot.queued.load(std::memory_order_relaxed) != 0) return true;
  }
  return false;
}

bool pool_engine::try_steal(worker_context& w) {
  if (!steal_ || workers_.size() < 2) return false;
  std::size_t const target = victims_[w.index]();
  // A user's victim part returns its own worker to skip an attempt (ext/victim_part.hpp); the built-in
  // choices never do with two workers or more.
  if (target == w.index) return false;
  worker_context& victim = *workers_[target];
  chaos_point();
  if (std::optional<stolen_continuation> const stolen = steal_from(victim, w.counters)) {
    run_stolen(w, *stolen);
    return true;
  }
  if (spawn_record* const child = steal_spawned(victim, w.counters)) {
    worker_counters::bump(w.counters.steals);
    run_spawned(w, child);
    return true;
  }
  return false;
}

void pool_engine::run_spawned(worker_context& w, spawn_record* child) {
  become_active(w);
  run_taken_record(w, child);
  become_thief(w);
}

void pool_engine::run_stolen(worker_context& w, const stolen_continuation& stolen) {
  // This worker now runs the continuation (steal.hpp claim_stolen: its steals count and home).
  claim_stolen(stolen);
  worker_counters::bump(w.counters.steals);
  become_active(w);
  run_from_scheduler(stolen.handle);
  become_thief(w);
}

}  // namespace fj::detail
