// pool_core (include/forkjoin/detail/pool_core.hpp): placing and starting the workers, the mode check,
// submission, shutdown and statistics. The scheduler loop the workers run is src/scheduler.cpp.

#include "forkjoin/detail/pool_core.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "forkjoin/detail/atomics.hpp"
#include "forkjoin/detail/build_mode.hpp"
#include "forkjoin/detail/cpu_fence.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/topology.hpp"
#include "pool_engine.hpp"

namespace fj {

std::size_t default_worker_count() noexcept {
  unsigned const n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

}  // namespace fj

namespace fj::detail {

unsigned library_build_mode() noexcept { return k_build_mode; }

namespace {

std::string describe_modes(unsigned bits) {
  std::string text = (bits & k_mode_tsan) != 0 ? "ThreadSanitizer" : "no ThreadSanitizer";
  text += (bits & k_mode_stack_checks) != 0 ? ", stack checks on (FJ_STACK_CHECKS=1)"
                                            : ", stack checks off (FJ_STACK_CHECKS=0)";
  text += (bits & k_mode_stack_poisoning) != 0 ? ", AddressSanitizer" : ", no AddressSanitizer";
  return text;
}

// Why: the library and the inline code share deques, frames and stacks (build_mode.hpp).
void check_modes(build_mode mode) {
  if (mode.bits == k_build_mode) return;
  throw invalid_config_error(
      "forkjoin: this program was compiled with " + describe_modes(mode.bits) +
      ", but the forkjoin library with " + describe_modes(k_build_mode) +
      "; the two share deques, frames and stacks whose protocols depend on these modes. Build the library in "
      "the same configuration (-fsanitize=thread or address) as the code that uses it, and link it through "
      "the CMake target forkjoin::forkjoin, which passes the library's FJ_STACK_CHECKS to its users (without "
      "CMake, define FJ_STACK_CHECKS as the library was built: 0 for a Release build, 1 for Debug)");
}

// pool_options::linger in nanoseconds, at most 2^62 (146 years), so that adding it to a time never overflows.
std::uint64_t linger_nanoseconds(std::chrono::microseconds linger) {
  if (linger.count() < 0) {
    throw invalid_config_error("linger must not be negative (asked for " + std::to_string(linger.count()) +
                               " microseconds)");
  }
  constexpr std::uint64_t cap = std::uint64_t{1} << 62;
  auto const us = static_cast<std::uint64_t>(linger.count());
  return us > cap / 1000 ? cap : us * 1000;
}

std::vector<std::size_t> first_n(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

// How steals are fenced, and why not asymmetrically when they are not (docs/protocols/deque.md §"Modes").
std::string fence_mode(bool asymmetric, bool one_core) {
  if (asymmetric && one_core) {
    return "steal fences: asymmetric (membarrier on the victim's core, one thief at a time per victim)";
  }
  if (asymmetric)
    return "steal fences: asymmetric (membarrier on every core, one thief at a time per victim)";
  if (tsan_build) return "steal fences: symmetric (ThreadSanitizer build)";
  if (env_flag_set("FJ_NO_ASYMMETRIC_FENCES")) return "steal fences: symmetric (FJ_NO_ASYMMETRIC_FENCES=1)";
  return "steal fences: symmetric (membarrier(PRIVATE_EXPEDITED) unavailable or refused)";
}

}  // namespace

pool_engine::pool_engine(pool_core& self, const pool_core::config& cfg, build_mode mode)
    : self_(self),
      steal_(cfg.steal),
      idle_(cfg.idle),
      stack_budget_(cfg.options.stack_budget),
      linger_ns_(linger_nanoseconds(cfg.options.linger)),
      chaos_(mode.chaos) {
  check_modes(mode);
  if (cfg.options.workers == 0) throw invalid_config_error("a pool needs at least one worker (asked for 0)");
  if (stack_budget_ < segmented_stack::k_first_stacklet_bytes)
    throw invalid_config_error("stack_budget must be at least " +
                               std::to_string(segmented_stack::k_first_stacklet_bytes) +
                               " bytes, one stacklet (asked for " + std::to_string(stack_budget_) + ")");
  std::size_t const n = cfg.options.workers;
  // Decided once, before any worker exists, so that every worker sees the same fence mode (atomics.hpp).
  bool const asymmetric = enable_asymmetric_fences();
  bool const one_core = enable_cpu_fences();
  // Placement: pinned, with no more workers than cores, worker i goes to core i and victims follow the
  // paper's Eq. 6; otherwise the OS places the workers and victims are uniform. NUMA groups (one awake
  // thief each in the lazy pool) come from the topology whenever the workers fit.
  topology const found = topology::discover();
  bool const fits = n <= found.size();
  pinned_ = fits && cfg.options.pinning == pin_policy::cores;
  placement_ = fits ? found.subset(first_n(n)) : topology::uniform(n, "more workers than cores");
  std::size_t const groups = std::max<std::size_t>(1, placement_.numa_nodes());
  accounting_ = std::make_unique<lazy_accounting>(idle_ == idle_policy::sleep && steal_, groups);
  // The victim part (basic_pool.hpp): Eq. 6 weights by default only when pinned; a uniform placement
  // (oversubscribed, or a flat machine) gives uniform weights, drawn the cheap way.
  using victim_policy = pool_core::victim_policy;
  bool const custom = cfg.victims == victim_policy::custom;
  bool const weighted = !placement_.is_uniform() && (cfg.victims == victim_policy::weighted ||
                                                     (cfg.victims == victim_policy::automatic && pinned_));
  std::string const victims = !steal_    ? std::string("no stealing")
                              : custom   ? std::string("victims by ") + cfg.custom.name
                              : weighted ? std::string("victims by Eq. 6")
                                         : std::string("uniform victims");
  description_ = std::string(cfg.kind) + ": " + std::to_string(n) + " worker(s)" +
                 (pinned_ ? ", pinned one per core (" : ", not pinned (") + victims + ")" +
                 "; topology: " + found.description() + (fits ? "" : " (oversubscribed: a flat placement)") +
                 "; " + fence_mode(asymmetric, one_core);

  workers_.reserve(n);
  victims_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    workers_.push_back(std::make_unique<worker_context>(&self_, i));
    workers_.back()->spawns_inline = !steal_;
    workers_.back()->group = fits ? placement_.numa_group(i) : 0;
    if (custom) {
      victims_.emplace_back(cfg.custom, placement_, i);
    } else if (weighted) {
      victims_.emplace_back(placement_, i);
    } else {
      victims_.emplace_back(n, i);
    }
  }
  for (std::size_t i = 0; i < n; ++i) accounting_->add_worker(workers_[i]->group);
  threads_ = std::make_unique<os_thread[]>(n);
  try {
    for (std::size_t i = 0; i < n; ++i) {
      threads_[i].start([this, i] { run(*workers_[i]); }, cfg.options.thread_stack_size);
    }
  } catch (...) {
    stop_workers();
    throw;
  }
}

void pool_engine::shutdown() {
  if (self_.is_own_worker()) {
    throw deadlock_error(
        "fj: a pool was shut down or destroyed from one of its own workers, which would wait for itself; "
        "shut it down from a thread outside the pool");
  }
  std::lock_guard lock(shutdown_mutex_);
  if (stopped_) return;
  inflight_.close_and_wait();
  stop_workers();
  stopped_ = true;
}

void pool_engine::wait_for_submitters() noexcept {
  // A thread of another pool that moved a task here may still be inside submit_to(), past its push: the
  // task may have run and finished its root already, which let shutdown() return. acquire: pairs with the
  // release fetch_sub in submit_to().
  while (submitters_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
}

void pool_engine::submit_any(submission* node) noexcept {
  // relaxed: as in submit_to().
  submitters_.fetch_add(1, std::memory_order_relaxed);
  shared_.push(node);
  chaos_point();
  if (idle_ == idle_policy::sleep) wake_a_sleeper();
  // release: pairs with the acquire load in wait_for_submitters(). LIFETIME: the last access to *this.
  submitters_.fetch_sub(1, std::memory_order_release);
}

void pool_engine::submit_to(std::size_t target, submission* node) noexcept {
  // relaxed: the destructor sees this increment through what follows the push: the task runs, its root
  // completes and leaves the in-flight count, on which shutdown() waits.
  submitters_.fetch_add(1, std::memory_order_relaxed);
  worker_context& w = *workers_[target];
  chaos_point();
  (void)w.inbox.push(node);
  chaos_point();
  // Always notify: the event count's notify is a cheap RMW when nobody waits, and skipping it on a stale
  // "not sleeping" reading would lose the wake-up (docs/traps.md "Event count: re-check and always notify",
  // sleep.md).
  if (idle_ == idle_policy::sleep) w.sleep.notify_one();
  // release: pairs with the acquire load in wait_for_submitters(). LIFETIME: the last access to *this.
  submitters_.fetch_sub(1, std::memory_order_release);
}

std::vector<worker_stats> pool_engine::stats() const {
  std::vector<worker_stats> out;
  out.reserve(workers_.size());
  for (const auto& w : workers_) {
    const worker_counters& c = w->counters;
    // relaxed: statistics, read while workers may be updating them.
    out.push_back(
        {c.steal_attempts.load(std::memory_order_relaxed), c.steals.load(std::memory_order_relaxed),
         c.roots_run.load(std::memory_order_relaxed), c.exceptions_dropped.load(std::memory_order_relaxed),
         c.submissions_run.load(std::memory_order_relaxed), c.sleeps.load(std::memory_order_relaxed),
         c.nanoseconds_asleep.load(std::memory_order_relaxed),
         c.forks_run_as_calls.load(std::memory_order_relaxed), c.heavy_fences.load(std::memory_order_relaxed),
         c.steals_contended.load(std::memory_order_relaxed),
         c.steals_at_sync.load(std::memory_order_relaxed)});
  }
  // relaxed: a statistic.
  if (!out.empty()) out.front().exceptions_dropped += dropped_off_worker_.load(std::memory_order_relaxed);
  return out;
}

std::size_t pool_engine::sleeping() const noexcept {
  std::size_t n = 0;
  for (const auto& w : workers_) n += w->sleep.waiters() != 0 ? 1 : 0;
  return n;
}

std::size_t pool_engine::any_worker() noexcept {
  // relaxed: only spreads work over the workers.
  return next_target_.fetch_add(1, std::memory_order_relaxed) % workers_.size();
}

void pool_engine::wake_a_sleeper() noexcept {
  wake_one(any_worker(), [](const worker_context&) { return true; });
}

void pool_engine::wake_a_thief(std::size_t group, const worker_context* self) noexcept {
  wake_one(0, [&](const worker_context& w) { return &w != self && w.group == group; }, true);
}

void pool_engine::stop_workers() noexcept {
  // release: pairs with the acquire loads in run() and sleep(): everything before the stop is visible to
  // exiting workers.
  stop_.store(true, std::memory_order_release);
  for (auto& w : workers_) w->sleep.notify_all();
  for (std::size_t i = 0; i < workers_.size(); ++i) threads_[i].join();
}

// ---- pool_core: the interface, forwarded ----

pool_core::pool_core(const config& cfg, build_mode mode)
    : engine_(std::make_unique<pool_engine>(*this, cfg, mode)) {}

pool_core::~pool_core() {
  shutdown();
  engine_->wait_for_submitters();
}

void pool_core::shutdown() { engine_->shutdown(); }
std::size_t pool_core::size() const noexcept { return engine_->workers_.size(); }
std::size_t pool_core::sleeping() const noexcept { return engine_->sleeping(); }
bool pool_core::room_beside_caller() const noexcept {
  // A pool without accounting counts no active worker: always room, as before.
  return engine_->accounting_->active() + 1 < static_cast<std::int64_t>(engine_->workers_.size());
}
const std::string& pool_core::description() const noexcept { return engine_->description_; }
std::size_t pool_core::stack_budget() const noexcept { return engine_->stack_budget_; }
inflight_counter& pool_core::inflight() noexcept { return engine_->inflight_; }
void pool_core::submit_any(submission* node) noexcept { engine_->submit_any(node); }

void pool_core::count_dropped_exception() noexcept {
  // relaxed: a statistic; any thread may count.
  engine_->dropped_off_worker_.fetch_add(1, std::memory_order_relaxed);  // model: none (statistic)
}
void pool_core::attach_priority_source(priority_source* source, std::atomic<std::size_t>*& queued) {
  pool_engine& e = *engine_;
  std::lock_guard lock(e.priority_mutex_);
  for (auto& slot : e.priority_slots_) {
    // relaxed: slots change only under priority_mutex_, which we hold.
    if (slot.source.load(std::memory_order_relaxed) != nullptr) continue;
    // Before the store below: a worker that loads the source reads the group's pointer to it.
    queued = &slot.queued;
    // seq_cst: pairs with the seq_cst load in run_priority() and priority_visible() (a poller that loads
    // null has not entered the slot, detach_priority_source). The group's pushes come after this store in
    // its thread or in tasks it started, so the sleep protocol's fences order it before their re-checks.
    slot.source.store(source, std::memory_order_seq_cst);
    // relaxed: a hint; the scan it saves is redone by the re-check in sleep() after its fence.
    e.priority_attached_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  throw invalid_config_error("fj::priority_group: at most " + std::to_string(k_priority_sources) +
                             " priority groups may use one pool at the same time");
}

void pool_core::detach_priority_source(priority_source* source) noexcept {
  pool_engine& e = *engine_;
  std::lock_guard lock(e.priority_mutex_);
  for (auto& slot : e.priority_slots_) {
    // relaxed: as in attach.
    if (slot.source.load(std::memory_order_relaxed) != source) continue;
    // seq_cst, with the seq_cst load of users below: store buffering against a poller's users.fetch_add
    // (seq_cst) and its load of source (seq_cst). Either the poller loads null, or we see its count and wait.
    slot.source.store(nullptr, std::memory_order_seq_cst);
    // seq_cst: as above; the acquire part pairs with the release fetch_sub of a leaving poller, so its use
    // of the source happens before the group dies. LIFETIME: after this loop reads zero the source may die.
    while (slot.users.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
    // relaxed: a hint, as in attach.
    e.priority_attached_.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
}

void pool_core::wake_for_priority_work() noexcept {
  if (engine_->idle_ != pool_engine::idle_policy::sleep) return;
  // Start the scan after the calling worker (not at the shared round-robin counter, whose RMW would put a
  // shared line on every priority spawn).
  worker_context const* const self = tls_worker;
  std::size_t const first = self != nullptr && self->pool == this ? self->index + 1 : 0;
  engine_->wake_one(first, [](const worker_context&) { return true; });
}

void pool_core::submit_to(std::size_t target, submission* node) noexcept { engine_->submit_to(target, node); }
std::vector<worker_stats> pool_core::stats() const { return engine_->stats(); }

void pool_core::submit_root(root_base& root, frame* task) {
  if (!engine_->inflight_.try_add()) throw pool_closed_error();
  root.inflight = &engine_->inflight_;
  root.node.task = task;
  engine_->submit_any(&root.node);
}

bool pool_core::withdraw_root(root_base& root) noexcept {
  if (!engine_->shared_.remove(&root.node)) return false;
  // A worker woken for this root finds the queue without it and goes back to sleep (sleep.md, step 4).
  root.inflight->remove();
  return true;
}

bool pool_core::has_idle_worker() const noexcept {
  pool_engine const& e = *engine_;
  // relaxed, both: a hint, as in room_beside_caller(). A stale answer costs a call that waits out a longer
  // prefix, or one that submits a root that no worker takes in time and then withdraws it.
  auto const sleepers = static_cast<std::int64_t>(e.sleepers_.n.load(std::memory_order_relaxed));
  return static_cast<std::int64_t>(e.workers_.size()) - sleepers - e.accounting_->active() > 0;
}

void pool_core::wake_for_next_call() noexcept {
  pool_engine& e = *engine_;
  if (e.idle_ != pool_engine::idle_policy::sleep || !e.steal_ || e.linger_ns_ == 0) return;
  // This thread's last such call, on which pool and when. A pool destroyed and another made at its address
  // costs at most one needless wake-up.
  thread_local const pool_engine* last_pool = nullptr;
  thread_local std::uint64_t last_call_ns = 0;
  std::uint64_t const now = steady_nanoseconds();
  bool const again = last_pool == &e && now - last_call_ns < e.linger_ns_;
  last_pool = &e;
  last_call_ns = now;
  if (again) e.wake_a_sleeper();
}

void pool_core::prewake() noexcept {
  if (engine_->idle_ == pool_engine::idle_policy::sleep) engine_->wake_a_sleeper();
}

}  // namespace fj::detail
