#pragma once
// fj::basic_pool<Idle, Victims, Priority>: a pool assembled from parts chosen at compile time (issue 24,
// docs/api.md "Composable pools"). busy_pool, lazy_pool and unit_pool are named configurations of it.
//
//   fj::basic_pool<fj::sleep_idle> pool(4);                                  // a lazy_pool by another name
//   fj::basic_pool<fj::spin_idle, fj::uniform_victims> spinning(4);          // busy, never Eq. 6
//   fj::basic_pool<fj::sleep_idle, fj::nearest_first_victims> ring(4);       // a user's victim part
//   fj::basic_pool<fj::sleep_idle, fj::default_victims, fj::with_relaxed_priority<16>> search(2);
//   search.spawn(0.0, relax, source);                                        // ext/priority_part.hpp
//   search.wait_for_priority_tasks();
//
// The parts:
//  - Idle: what a worker does when it finds nothing to run. fj::spin_idle keeps trying to steal, yielding
//    now and then (busy_pool); fj::sleep_idle sleeps on its event count, with one thief awake per NUMA group
//    while work is active (lazy_pool, docs/protocols/sleep.md). Only these two: the sleep protocol is where
//    wake-ups get lost, and it stays in the library.
//  - Victims: which worker an idle worker tries to steal from. fj::default_victims (Eq. 6 weights when
//    pinned to a non-uniform machine, else uniform: what busy_pool and lazy_pool do), fj::uniform_victims
//    (uniform, pinned or not), fj::numa_victims (Eq. 6 weights of the workers' cores whenever they fit on the
//    machine; pin them, or the OS moves them away from the cores the weights describe), fj::no_victims (no
//    stealing: a root runs on the worker that took it, in the serial order, unless it moves itself with
//    fj::resume_on; unit_pool), or
//    any type modelling fj::victim_part (ext/victim_part.hpp; example: ext/nearest_first_victims.hpp).
//  - Priority: fj::without_priority (the default), or fj::with_priority<Storage> (ext/priority_part.hpp),
//    which gives the pool spawn(priority, fn, args...). Without one, pool.spawn(priority, ...) does not
//    compile.
//
// What the parts cost: nothing on a fork, call, join or spawn, which never touch the pool object (the
// worker's deque and stack are found through thread-locals). The built-in parts are runtime settings of the
// one engine compiled into the library (src/), so each configuration runs the same scheduler loop as before
// and the pools' translation units do not compile the engine; a user's victim part costs one indirect call
// per steal attempt. To give a configuration a name of its own, derive from it and pass the name to the
// protected constructor, as busy_pool.hpp does: the name starts description().

#include <concepts>
#include <cstddef>
#include <type_traits>

#include "forkjoin/detail/pool_base.hpp"
#include "forkjoin/detail/pool_core.hpp"
#include "forkjoin/ext/victim_part.hpp"
#include "forkjoin/pool_options.hpp"
#include "forkjoin/topology.hpp"

namespace fj {

// ---- idle parts ----

struct spin_idle {};
struct sleep_idle {};

// ---- victim parts built into the engine ----

struct default_victims {};
struct uniform_victims {};
struct numa_victims {};
struct no_victims {};

namespace detail {

template <class Idle>
inline constexpr bool is_idle_part = std::same_as<Idle, spin_idle> || std::same_as<Idle, sleep_idle>;

template <class Victims>
inline constexpr bool is_builtin_victims =
    std::same_as<Victims, default_victims> || std::same_as<Victims, uniform_victims> ||
    std::same_as<Victims, numa_victims> || std::same_as<Victims, no_victims>;

// What every priority part derives from, so that basic_pool can recognise one.
struct priority_part_tag {};

template <class...>
inline constexpr bool pool_has_no_priority_part = false;

// A user's victim part on the heap, padded: its worker writes it on every steal attempt, and the other
// workers' parts may be its neighbours in memory. Padding, not alignas, as for every type of the public
// headers a user might declare in a task (coroutine frames are not aligned beyond 16 bytes,
// docs/compilers.md).
template <class Part>
struct victim_part_box {
  victim_part_box(std::size_t workers, std::size_t self, const topology& placement)
      : part(workers, self, placement) {}

  [[maybe_unused]] std::byte pad_before[128]{};
  Part part;
  [[maybe_unused]] std::byte pad_after[128]{};

  static void* make(std::size_t workers, std::size_t self, const topology& placement) {
    return new victim_part_box(workers, self, placement);
  }
  static std::size_t next(void* box) noexcept {
    return static_cast<std::size_t>(static_cast<victim_part_box*>(box)->part());
  }
  static void destroy(void* box) noexcept { delete static_cast<victim_part_box*>(box); }
};

template <class Part>
consteval const char* victim_part_name() {
  if constexpr (requires {
                  { Part::name } -> std::convertible_to<const char*>;
                }) {
    return Part::name;
  } else {
    return "a custom victim part";
  }
}

template <class Idle, class Victims>
pool_core::config pool_config(const pool_options& options, const char* kind) {
  pool_core::config cfg{.options = options, .kind = kind};
  cfg.idle = std::same_as<Idle, spin_idle> ? pool_core::idle_policy::spin : pool_core::idle_policy::sleep;
  if constexpr (std::same_as<Victims, default_victims>) {
    cfg.victims = pool_core::victim_policy::automatic;
  } else if constexpr (std::same_as<Victims, uniform_victims>) {
    cfg.victims = pool_core::victim_policy::uniform;
  } else if constexpr (std::same_as<Victims, numa_victims>) {
    cfg.victims = pool_core::victim_policy::weighted;
  } else if constexpr (std::same_as<Victims, no_victims>) {
    cfg.steal = false;
  } else {
    cfg.victims = pool_core::victim_policy::custom;
    cfg.custom = {.make = &victim_part_box<Victims>::make,
                  .next = &victim_part_box<Victims>::next,
                  .destroy = &victim_part_box<Victims>::destroy,
                  .name = victim_part_name<Victims>()};
  }
  return cfg;
}

}  // namespace detail

// ---- the priority part of a pool without one ----

class without_priority : public detail::priority_part_tag {
 public:
  // Only here to explain the error: a pool without a priority storage cannot spawn priority tasks.
  template <class... Args>
  void spawn(const Args&... /*args*/) {
    static_assert(detail::pool_has_no_priority_part<Args...>,
                  "pool.spawn(priority, fn, args...): this pool has no priority storage; configure one, e.g. "
                  "fj::basic_pool<fj::sleep_idle, fj::default_victims, fj::with_relaxed_priority<16>> "
                  "(forkjoin/ext/priority_part.hpp), or attach an fj::priority_group to this pool");
  }

 protected:
  explicit without_priority(detail::pool_base& /*pool*/) noexcept {}
  // Nothing to wait for at shutdown.
  void finish_priority_tasks() noexcept {}
  ~without_priority() = default;
};

// ---- the pool ----

template <class Idle, class Victims = default_victims, class Priority = without_priority>
class basic_pool : public detail::pool_base, public Priority {
  static_assert(detail::is_idle_part<Idle>,
                "fj::basic_pool<Idle, ...>: Idle must be fj::spin_idle or fj::sleep_idle");
  static_assert(
      detail::is_builtin_victims<Victims> || victim_part<Victims>,
      "fj::basic_pool<Idle, Victims, ...>: Victims must be fj::default_victims, fj::uniform_victims, "
      "fj::numa_victims, fj::no_victims or a type modelling fj::victim_part "
      "(forkjoin/ext/victim_part.hpp)");
  static_assert(std::derived_from<Priority, detail::priority_part_tag>,
                "fj::basic_pool<Idle, Victims, Priority>: Priority must be fj::without_priority or "
                "fj::with_priority<Storage> (forkjoin/ext/priority_part.hpp)");

 public:
  using idle_part = Idle;
  using victims_part = Victims;
  using priority_part = Priority;

  // One worker per hardware thread.
  basic_pool() : basic_pool(pool_options{}) {}
  // Throws fj::invalid_config_error for 0 workers.
  explicit basic_pool(std::size_t workers) : basic_pool(pool_options{.workers = workers}) {}
  // Throws fj::invalid_config_error for bad options, and what a victim part's constructor throws.
  explicit basic_pool(const pool_options& options) : basic_pool(options, "basic_pool") {}

  // shutdown() (pool_base): with a priority part, first waits until the priority tasks have finished (they
  // could not run after it); then as every pool: refuses new work, waits for the roots submitted, stops the
  // workers. Idempotent.

 protected:
  // For named configurations: `kind` starts description() ("busy_pool: 4 worker(s), ...").
  basic_pool(const pool_options& options, const char* kind)
      : pool_base(detail::pool_config<Idle, Victims>(options, kind)),
        Priority(static_cast<pool_base&>(*this)) {
    if constexpr (!std::is_same_v<Priority, without_priority>) set_shutdown_hook(&finish_priority_tasks_of);
  }

 private:
  static void finish_priority_tasks_of(pool_base& pool) noexcept {
    static_cast<basic_pool&>(pool).Priority::finish_priority_tasks();
  }
};

}  // namespace fj
