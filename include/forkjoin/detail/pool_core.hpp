#pragma once
// The engine shared by forkjoin's pools (paper III-D), as the rest of the library sees it: hand it tasks
// (submit_root, submit_any, submit_to), ask who runs here (is_own_worker), shut it down. fj::basic_pool
// (basic_pool.hpp) configures it from its parts: the idle policy (spin; or sleep, keeping one thief awake per
// NUMA group while work is active), the victim choice, and whether workers steal at all; busy_pool, lazy_pool
// and unit_pool are named configurations. The sleep protocol is docs/protocols/sleep.md.
//
// The engine itself is compiled into the library (src/): worker threads and pinning (src/pool_core.cpp), the
// scheduler loop that runs submitted tasks, steals continuations and sleeps (src/scheduler.cpp), built from
// detail/steal.hpp, detail/victim_choice.hpp, detail/shared_queue.hpp and detail/lazy_accounting.hpp. None of
// it is on a fork's or a join's path, and keeping it out of the users' translation units keeps their compile
// times down. Its constructor passes the user's compile-time modes to the library (build_mode.hpp).

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "forkjoin/detail/build_mode.hpp"
#include "forkjoin/detail/priority_source.hpp"
#include "forkjoin/detail/root.hpp"
#include "forkjoin/detail/submission.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "forkjoin/pool_options.hpp"

namespace fj {
class topology;
}  // namespace fj

namespace fj::detail {

class pool_engine;

class pool_core {
 public:
  enum class idle_policy {
    spin,   // busy_pool: keep stealing, yielding the CPU now and then
    sleep,  // lazy_pool and unit_pool: sleep on the worker's event count (sleep.md)
  };

  // How a thief picks its victim (basic_pool's victim part, basic_pool.hpp).
  enum class victim_policy {
    automatic,  // Eq. 6 weights when pinned on a non-uniform machine, else uniform (fj::default_victims)
    uniform,    // uniform among the other workers, pinned or not (fj::uniform_victims)
    weighted,   // Eq. 6 weights of the workers' cores whenever they fit on the machine (fj::numa_victims)
    custom,     // a user's part, through config::custom (ext/victim_part.hpp)
  };

  // A user's victim part with its type erased (basic_pool.hpp makes one per part type): make builds worker
  // `self`'s part and may throw; next draws a victim, one indirect call per steal attempt; destroy frees it.
  struct custom_victims {
    void* (*make)(std::size_t workers, std::size_t self, const topology& placement) = nullptr;
    std::size_t (*next)(void* part) noexcept = nullptr;
    void (*destroy)(void* part) noexcept = nullptr;
    const char* name = "a custom victim part";  // for description() and the error on a bad victim
  };

  struct config {
    pool_options options;
    bool steal = true;  // false: no thieves (unit_pool, fj::no_victims)
    idle_policy idle = idle_policy::spin;
    victim_policy victims = victim_policy::automatic;
    custom_victims custom{};  // used when victims == custom
    const char* kind = "pool";
  };

  // Starts the workers. Throws fj::invalid_config_error for 0 workers, a stack budget below one stacklet, or
  // a translation unit compiled in other modes than the library (build_mode.hpp).
  explicit pool_core(const config& cfg) : pool_core(cfg, this_build_mode()) {}

  pool_core(const pool_core&) = delete;
  pool_core& operator=(const pool_core&) = delete;

  // Shuts down (a pool destroyed from one of its own workers terminates with the message of shutdown()).
  ~pool_core();

  // Refuses new roots (sync_wait then throws fj::pool_closed_error), waits for every accepted root to finish,
  // and stops the workers. Idempotent; the destructor calls it. From one of the pool's own workers it throws
  // fj::deadlock_error (from the destructor, which is noexcept, that terminates with the message).
  void shutdown();

  [[nodiscard]] bool is_own_worker() const noexcept {
    worker_context* w = tls_worker;
    return w != nullptr && w->pool == this;
  }

  [[nodiscard]] std::size_t size() const noexcept;

  // Whether a lazy pool has a worker slot left beside the workers running tasks and one thread from outside
  // working with them (an algorithm's caller, docs/algorithms.md "Entering the pool"): then a piece of that
  // call may split for another worker to take. Always true on pools that keep no such count (busy, unit).
  [[nodiscard]] bool room_beside_caller() const noexcept;

  // Workers registered as sleeping right now (a snapshot, for tests and monitoring).
  [[nodiscard]] std::size_t sleeping() const noexcept;
  [[nodiscard]] const std::string& description() const noexcept;

  // pool_options::stack_budget: the most stacklet memory any stack of this pool may hold.
  [[nodiscard]] std::size_t stack_budget() const noexcept;

  // Hands a root (kind root, its own stack as home) to whichever worker takes it first. Throws
  // fj::pool_closed_error once shutdown has begun.
  void submit_root(root_base& root, frame* task);

  // Takes back a root handed over by submit_root if no worker has taken it yet, and stops counting it in
  // flight: then nobody will ever run it, and the caller destroys it (started_root::withdraw). False if a
  // worker has taken it: it runs and completes as usual.
  [[nodiscard]] bool withdraw_root(root_base& root) noexcept;

  // The roots this pool must finish before it stops: its own, and those whose tasks moved onto it.
  [[nodiscard]] inflight_counter& inflight() noexcept;

  // Hands a suspended task to any worker: the pool's shared queue, from which every worker takes work before
  // it steals. A worker that is busy or blocked (inside a sync_wait on another pool, say) cannot strand it,
  // as it could in its own inbox (sleep.md "The lazy pool's rule", step 4).
  // LIFETIME: after the push a worker may run the task, which may free `node`.
  void submit_any(submission* node) noexcept;

  // Hands a suspended task to worker `target` (explicit scheduling, paper III-D1).
  // LIFETIME: after the push the worker may run the task, which may free `node`.
  void submit_to(std::size_t target, submission* node) noexcept;

  [[nodiscard]] std::vector<worker_stats> stats() const;

  // Priority groups (priority_group.hpp, docs/protocols/priority.md §10). attach makes the pool's workers
  // poll `source` before they steal; `queued` is set to the slot's count of queued tasks, which the group
  // keeps, before the source is published to the workers. Throws fj::invalid_config_error when
  // k_priority_sources groups are attached already. detach stops that and returns once no worker is inside
  // the source any more.
  static constexpr std::size_t k_priority_sources = 8;
  void attach_priority_source(priority_source* source, std::atomic<std::size_t>*& queued);
  void detach_priority_source(priority_source* source) noexcept;
  // After a push on an attached source: on a lazy or unit pool, wakes one sleeping worker, if any.
  void wake_for_priority_work() noexcept;

  // A child's exception dropped on a thread that is not one of the pool's workers (an fj::scope opened on an
  // ordinary thread, destroyed during unwinding): counted in the first worker's exceptions_dropped.
  void count_dropped_exception() noexcept;

  // On a lazy or unit pool, wakes one sleeping worker, if any, with no work for it yet (a no-op on a busy
  // pool): a scan that will submit its chunks shortly calls it first, so that a worker is awake and spinning
  // when they arrive instead of being woken by the submission (docs/algorithms.md "Grain").
  void prewake() noexcept;

  // For a parallel algorithm called from ordinary code: whether a worker is awake and idle (neither asleep
  // nor running a task), so that the call can enter the pool without waiting for a wake-up. A hint.
  [[nodiscard]] bool has_idle_worker() const noexcept;

  // A call from ordinary code stayed on its caller only because every worker slept. If this pool's workers
  // linger (pool_options::linger) and the same thread's previous such call on this pool was less than a
  // linger ago, wakes one worker (a plain notify) for the calls to come, which then find it awake: a thread
  // calling again and again keeps a worker awake (docs/algorithms.md "Grain").
  void wake_for_next_call() noexcept;

 private:
  pool_core(const config& cfg, build_mode mode);

  std::unique_ptr<pool_engine> engine_;
};

}  // namespace fj::detail
