#pragma once
// fj::priority_group: fire-and-forget tasks that the pool's workers run in priority order.
//
//   fj::lazy_pool pool(2);
//   fj::relaxed_priority_group<16> g(pool);      // or strict_priority_group, no_priority_group
//   g.spawn(0.0, relax, &graph, source);         // priority first: lower = more urgent
//   g.wait();                                    // every task, and every task they spawned, has finished
//
// A task is a plain function call: g.spawn(priority, fn, args...) copies fn and args (as std::thread does:
// pass std::ref(x) for a reference) and returns at once; some worker of the pool calls fn(args...) later.
// When fn and every argument are trivially copyable and together fit priority_task::inline_bytes (a function
// pointer, a pointer and a small node of a search), the call travels inside the storage's value, with no
// allocation; any other call is allocated on the heap and freed after it ran. A task may spawn more tasks
// into its group. The pool's workers take priority tasks when their own deques, inbox and the pool's shared
// queue are empty, before they steal (src/scheduler.cpp); among the group's tasks, each takes the most urgent
// one its storage lets it see (ext/priority_storage.hpp: the strict storage sees all, the relaxed one may
// miss the K newest pushed by other workers, the no-priority one ignores priorities).
//
// spawn may be called from any thread: on a worker of the group's pool the storage's index is that worker's
// index; any other thread (the one that made the group, a worker of another pool) uses the extra index P (the
// pool's size), serialised by a mutex, and the pool's workers poll that index when their own finds nothing
// (docs/protocols/priority.md §10).
//
// wait() returns when every task spawned so far has finished, and rethrows the first exception a task threw
// (the others are counted in the pool's statistics as exceptions_dropped, as fj::scope counts them); no task
// is dropped because another threw. On an ordinary thread it blocks; on a worker of the group's pool (inside
// a task of the pool) it runs the group's tasks itself until they are all done. The group may be reused after
// wait(). The destructor waits too, and drops (counts) an exception nobody collected. The group must be
// destroyed before its pool; at most pool_core::k_priority_sources groups may use one pool at once.
//
// Coroutine tasks: a priority task is a plain function, not an fj::task; it may use fj::scope inside (plain
// fork-join on the worker's deque) and spawn into any group. Continuations of coroutines and fj::scope
// children are in the workers' deques, which come first: priorities order only the group's own tasks,
// never a coroutine's continuation. A coroutine running on the pool may spawn into a group; its wait() then
// runs the group's tasks on that worker without suspending the coroutine (docs/api.md "Priority groups").

#include <array>
#include <atomic>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>

#include "forkjoin/detail/pool_core.hpp"
#include "forkjoin/detail/priority_source.hpp"
#include "forkjoin/detail/task_memory.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/ext/no_priority_storage.hpp"
#include "forkjoin/ext/priority_storage.hpp"
#include "forkjoin/ext/relaxed_priority_storage.hpp"
#include "forkjoin/ext/strict_priority_storage.hpp"

namespace fj {

// A queued priority task, as the group's storage holds it: a value the storages copy bit for bit. A call
// whose function and arguments are all trivially copyable and fit `inline_bytes` (a search's step: a function
// pointer, a pointer to the search's state and a small node) is stored here itself, so that the storage's
// item carries it and taking it reads no other line; any other call lives on the heap and `call` holds a
// pointer to it.
struct priority_task {
  static constexpr std::size_t inline_bytes = 48;
  // Calls the function (and frees a heap call), also when the call throws. `self` is the caller's copy.
  void (*run)(priority_task& self);
  alignas(8) std::byte call[inline_bytes];
};

namespace detail {

// A call's function and arguments, stored one after another: unlike std::tuple, an aggregate of trivially
// copyable members is trivially copyable, which is what lets a call travel as the bytes of a priority_task.
template <class... T>
struct call_parts {};

template <class T, class... R>
struct call_parts<T, R...> {
  template <class U, class... V>
    requires(!std::same_as<std::remove_cvref_t<U>, call_parts>)
  explicit call_parts(U&& u, V&&... v) : first(std::forward<U>(u)), rest(std::forward<V>(v)...) {}

  T first;
  [[no_unique_address]] call_parts<R...> rest;
};

// Calls the function in `parts` with the arguments after it, each moved out.
template <class... Done>
void call_with(call_parts<>& /*parts*/, Done&&... done) {
  std::invoke(std::forward<Done>(done)...);
}
template <class T, class... R, class... Done>
void call_with(call_parts<T, R...>& parts, Done&&... done) {
  call_with(parts.rest, std::forward<Done>(done)..., std::move(parts.first));
}

// Whether spawn(priority, f, args...) stores the call in the task itself.
template <class F, class... Args>
inline constexpr bool stored_inline = [] {
  using parts = call_parts<std::decay_t<F>, std::decay_t<Args>...>;
  return std::is_trivially_copyable_v<parts> && sizeof(parts) <= priority_task::inline_bytes &&
         alignof(parts) <= alignof(priority_task);
}();

template <class Parts>
void run_inline(priority_task& self) {
  // bit_cast, not a cast of the bytes' address: the bytes hold no object (the storages copied them as an
  // array), and Parts need not be default-constructible to be read.
  std::array<std::byte, sizeof(Parts)> bytes{};
  std::memcpy(bytes.data(), self.call, sizeof(Parts));
  auto parts = std::bit_cast<Parts>(bytes);
  call_with(parts);
}

// g++ 12 warns that the copy below may read an uninitialised byte when a part is an empty class (a lambda
// without captures): that byte holds no value, and copying it as bytes is well defined; nothing reads it as a
// value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
template <class Parts, class F, class... Args>
priority_task make_inline_task(F&& fn, Args&&... args) {
  priority_task task{};
  task.run = &run_inline<Parts>;
  const Parts parts(std::forward<F>(fn), std::forward<Args>(args)...);
  std::memcpy(task.call, &parts, sizeof(Parts));
  return task;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// A call that is not stored inline: on the heap, freed after it runs.
template <class Call>
struct priority_task_of final {
  template <class... A>
  explicit priority_task_of(A&&... a) : call(std::forward<A>(a)...) {}

  Call call;

  // Recycled per thread (detail/task_memory.hpp): a search spawns and frees one task per step.
  [[nodiscard]] static void* operator new(std::size_t bytes) {
    return task_memory::allocate<alignof(priority_task_of)>(bytes);
  }
  static void operator delete(void* p, std::size_t bytes) noexcept {
    task_memory::deallocate<alignof(priority_task_of)>(p, bytes);
  }

  static void run_it(priority_task& self) {
    const std::unique_ptr<priority_task_of> owned(std::bit_cast<priority_task_of*>(pointer_bytes(self)));
    std::apply([](auto&&... a) { std::invoke(std::move(a)...); }, std::move(owned->call));
  }

  // The task that holds `heap` (which it owns from then on).
  static priority_task task_for(priority_task_of* heap) noexcept {
    priority_task task{};
    task.run = &run_it;
    const auto bytes = std::bit_cast<std::array<std::byte, sizeof(priority_task_of*)>>(heap);
    std::memcpy(task.call, bytes.data(), bytes.size());
    return task;
  }

 private:
  static std::array<std::byte, sizeof(priority_task_of*)> pointer_bytes(const priority_task& self) noexcept {
    std::array<std::byte, sizeof(priority_task_of*)> bytes{};
    std::memcpy(bytes.data(), self.call, bytes.size());
    return bytes;
  }
};

// The group whose task this thread is running (wait() from inside it would wait for itself).
inline constinit thread_local const void* tls_running_group = nullptr;

template <class S>
inline constexpr bool is_task_storage = false;
template <class S>
  requires priority_storage<S>
inline constexpr bool is_task_storage<S> = std::same_as<typename S::value_type, priority_task>;

}  // namespace detail

template <class Storage>
class priority_group final : private detail::priority_source {
  static_assert(detail::is_task_storage<Storage>,
                "fj::priority_group<Storage>: Storage must model fj::priority_storage with value_type "
                "fj::priority_task (e.g. fj::relaxed_priority_storage<fj::priority_task, 16>)");

 public:
  using storage_type = Storage;

  // Attaches the group to `pool`. Throws fj::invalid_config_error when the pool has too many groups.
  template <class Pool>
    requires requires(Pool& p) {
      { p.core() } -> std::same_as<detail::pool_core&>;
    }
  explicit priority_group(Pool& pool)
      : core_(pool.core()),
        storage_(pool.size() + 1),
        outside_(pool.size()),
        credits_(std::make_unique<credit[]>(pool.size())) {
    core_.attach_priority_source(this, queued_);
  }

  priority_group(const priority_group&) = delete;
  priority_group& operator=(const priority_group&) = delete;
  priority_group(priority_group&&) = delete;
  priority_group& operator=(priority_group&&) = delete;

  // Waits for the tasks (an exception not collected by wait() is dropped and counted), then detaches.
  ~priority_group() {
    wait_for_tasks();
    if (exception_) {
      exception_ = nullptr;
      count_dropped();
    }
    core_.detach_priority_source(this);
  }

  // Queues fn(args...) with `priority` (lower = more urgent; infinities allowed). Throws fj::priority_error
  // for a NaN priority and std::bad_alloc; then nothing is queued.
  template <class F, class... Args>
  void spawn(double priority, F&& fn, Args&&... args) {
    static_assert(std::is_invocable_v<std::decay_t<F>, std::decay_t<Args>...>,
                  "fj::priority_group::spawn(priority, fn, args...): fn(args...) must be callable with the "
                  "arguments copied (pass std::ref(x) for a reference)");
    detail::check_priority(priority);
    // A call stored inline needs nothing freed if the push throws; a heap call is freed then.
    std::unique_ptr<detail::priority_task_of<std::tuple<std::decay_t<F>, std::decay_t<Args>...>>> heap;
    priority_task task{};
    if constexpr (detail::stored_inline<F, Args...>) {
      task = detail::make_inline_task<detail::call_parts<std::decay_t<F>, std::decay_t<Args>...>>(
          std::forward<F>(fn), std::forward<Args>(args)...);
    } else {
      heap = std::make_unique<typename decltype(heap)::element_type>(std::forward<F>(fn),
                                                                     std::forward<Args>(args)...);
      task = decltype(heap)::element_type::task_for(heap.get());
    }
    // On a worker of the pool, a unit of a count that the worker holds back (a credit, priority.md §10)
    // stands for the increment: the count already covers this task.
    detail::worker_context* const w = detail::tls_worker;
    credit* const mine = w != nullptr && w->pool == &core_ ? &credits_[w->index] : nullptr;
    if (mine != nullptr && mine->pending != 0) {
      --mine->pending;
    } else {
      // relaxed: the count only has to be non-zero until this task finishes; its decrement comes after the
      // task runs, which the storage orders after the push (RMWs on one atomic read the latest value).
      pending_.fetch_add(1, std::memory_order_relaxed);
    }
    // With a queued credit there is no new unit of queued work: the spawn that made the unit woke a worker
    // for it, and we, awake, see our own push (priority.md §10).
    bool const wake = mine == nullptr || mine->queued == 0;
    if (wake) {
      // relaxed: ordered before the re-check of a worker going to sleep by the seq_cst fences of
      // wake_for_priority_work() and sleep() (priority.md §10); the storage orders the decrement after it.
      queued_->fetch_add(1, std::memory_order_relaxed);
    } else {
      --mine->queued;
    }
    try {
      if (mine != nullptr) {
        storage_.push(w->index, task, priority);
      } else {
        const std::lock_guard<std::mutex> lock(outside_mutex_);
        storage_.push(outside_, task, priority);
        // relaxed: a hint that lets workers skip the outside index (take()); the mutex orders the storage.
        outside_queued_.store(outside_queued_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      }
    } catch (...) {
      // relaxed: as above; the task was never visible.
      queued_->fetch_sub(1, std::memory_order_relaxed);
      finish(1);
      throw;
    }
    // LIFETIME: a worker may run and free a heap call from here on.
    (void)heap.release();
    if (wake) {
      core_.wake_for_priority_work();
    }
  }

  // Waits for every task spawned so far and the tasks they spawned; rethrows the first exception. Throws
  // fj::deadlock_error from inside a task of this group (it would wait for itself).
  void wait() {
    if (detail::tls_running_group == this) {
      throw deadlock_error(
          "fj::priority_group::wait() was called from a task of the same group, which would wait for itself; "
          "wait from the code that owns the group");
    }
    wait_for_tasks();
    if (exception_) {
      // relaxed: no task runs now; the next wait() starts a new round.
      claimed_.store(false, std::memory_order_relaxed);
      std::rethrow_exception(std::exchange(exception_, nullptr));
    }
  }

  // Tasks spawned and not yet finished (a snapshot), plus finished ones whose worker has not yet settled its
  // counts: at most one batch per worker (priority.md §10). Zero once wait() has returned.
  [[nodiscard]] std::size_t pending() const noexcept {
    // relaxed: a snapshot.
    return pending_.load(std::memory_order_relaxed);
  }

  [[nodiscard]] Storage& storage() noexcept { return storage_; }

 private:
  // ---- priority_source: what the pool's workers call ----

  [[nodiscard]] void* take(std::size_t worker) noexcept override {
    // relaxed: skips the storage when nothing is queued; a stale zero costs one round of the scheduler loop,
    // and a worker going to sleep reads it again after its fence (priority_visible).
    if (queued_->load(std::memory_order_relaxed) == 0) {
      return nullptr;
    }
    std::optional<priority_task> got;
    try {
      got = storage_.pop(worker);
      // What the outside index holds only its pusher's pop could be sure to see: the workers take turns.
      // relaxed: a hint, so that workers do not take the mutex's line from each other when the outside
      // index is empty. A stale zero costs a round: the worker stays awake while queued_ is not zero.
      if (!got && outside_queued_.load(std::memory_order_relaxed) != 0 && outside_mutex_.try_lock()) {
        const std::lock_guard<std::mutex> lock(outside_mutex_, std::adopt_lock);
        got = storage_.pop(outside_);
        if (got) {
          // relaxed: as in spawn(), under the mutex.
          outside_queued_.store(outside_queued_.load(std::memory_order_relaxed) - 1,
                                std::memory_order_relaxed);
        }
      }
    } catch (...) {
      // std::bad_alloc while the relaxed storage records new items: nothing is lost, the next poll goes on.
      return nullptr;
    }
    if (!got) {
      return nullptr;
    }
    // The task's unit of queued_ stays counted, as this worker's credit, until settle() (or a spawn of this
    // worker takes it over): the decrement comes after the pop that took the task (program order), so a
    // re-check that reads zero has no task to miss.
    credit& mine = credits_[worker];
    ++mine.queued;
    if (--mine.until_catch_up == 0) {
      mine.until_catch_up = k_catch_up_period;
      catch_up_outside();
    }
    // The pool passes tasks as pointers: this worker's entry holds the task until run() copies it out.
    mine.taken = *got;
    return &mine.taken;
  }

  // The outside index pops only when a worker's own pop finds nothing while it may hold a task: in a group
  // fed from an ordinary thread and kept busy by its own tasks, that may be never, and the relaxed storage's
  // view for that index would pin every block of its shared array from there on. So the workers move that
  // view to the tail now and then (priority.md §10 "The outside index"); storages without views have
  // nothing to move.
  void catch_up_outside() noexcept {
    if constexpr (requires(Storage& s, std::size_t index) { s.skip(index); }) {
      if (outside_mutex_.try_lock()) {
        const std::lock_guard<std::mutex> lock(outside_mutex_, std::adopt_lock);
        storage_.skip(outside_);
      }
    }
  }

  void run(void* task, std::size_t worker) noexcept override {
    // A copy: the task may wait on another group of the pool, whose tasks may take from this group again on
    // this worker (into the same entry).
    priority_task t = *static_cast<const priority_task*>(task);
    const void* const outer = std::exchange(detail::tls_running_group, this);
    try {
      t.run(t);
    } catch (...) {
      capture(std::current_exception());
    }
    detail::tls_running_group = outer;
    // The task's unit of pending_ stays counted, as a credit, until settle(), which publishes the task's
    // effects with its release decrement.
    ++credits_[worker].pending;
  }

  void settle(std::size_t worker) noexcept override {
    credit& mine = credits_[worker];
    if (mine.queued != 0) {
      // relaxed: as the increments; after the pops that took these tasks (program order).
      queued_->fetch_sub(std::exchange(mine.queued, 0), std::memory_order_relaxed);
    }
    if (mine.pending != 0) {
      finish(std::exchange(mine.pending, 0));
    }
  }

  // ---- the group's own state ----

  void capture(std::exception_ptr e) noexcept {
    // relaxed: one winner; its write of exception_ reaches wait() through the release decrement of pending_.
    if (!claimed_.exchange(true, std::memory_order_relaxed)) {
      exception_ = std::move(e);
    } else {
      count_dropped();
    }
  }

  void count_dropped() noexcept {
    if (detail::worker_context* w = detail::tls_worker; w != nullptr) {
      detail::worker_counters::bump(w->counters.exceptions_dropped);
    } else {
      core_.count_dropped_exception();
    }
  }

  // `n` tasks have finished (or one failed to be queued).
  void finish(std::size_t n) noexcept {
    // acq_rel: the release pairs with the acquire loads in wait_for_tasks(): the tasks' effects and their
    // exception happen before wait() returns; the acquire orders the earlier finishers' before our notify.
    // LIFETIME: once this reads n the waiter may return; the group stays alive until this worker leaves the
    // pool's slot (detach_priority_source waits for it), or this is the waiting thread itself.
    if (pending_.fetch_sub(n, std::memory_order_acq_rel) == n) {
      pending_.notify_all();
    }
  }

  void wait_for_tasks() {
    if (detail::worker_context* w = detail::tls_worker; w != nullptr && w->pool == &core_) {
      // A worker of the pool: run the group's tasks here instead of blocking a worker they may need.
      // acquire: pairs with the release decrements in finish().
      while (pending_.load(std::memory_order_acquire) != 0) {
        if (void* const task = take(w->index)) {
          run(task, w->index);
          settle(w->index);  // before the next load of pending_: our own credit would keep it above zero
        } else {
          std::this_thread::yield();
        }
      }
      return;
    }
    for (;;) {
      // acquire: pairs with the release decrements in finish().
      const std::size_t n = pending_.load(std::memory_order_acquire);
      if (n == 0) {
        return;
      }
      // acquire: as above. Woken by the notify of the decrement to zero.
      pending_.wait(n, std::memory_order_acquire);
    }
  }

  detail::pool_core& core_;
  Storage storage_;
  std::size_t const outside_;  // the storage index of threads that are not workers of the pool
  std::mutex outside_mutex_;   // serialises the users of that index
  std::atomic<std::size_t> outside_queued_{0};  // values at that index (written under the mutex)
  // Padding, not alignas: a group may be a local of a task, and coroutine frames are not allocated with more
  // than the default alignment.
  [[maybe_unused]] std::byte pad_before_pending_[128]{};
  std::atomic<std::size_t> pending_{0};  // spawned, not finished
  [[maybe_unused]] std::byte pad_after_pending_[128]{};
  // In the storage: pushed (or being pushed), not taken, plus the workers' queued credits. The pool's slot
  // for this group holds it.
  std::atomic<std::size_t>* queued_ = nullptr;
  // Units of pending_ and queued_ that a worker of the pool keeps back between its takes and its settle()
  // (priority.md §10): its finished tasks and the tasks it took, which its own spawns reuse
  // instead of a read-modify-write each. Only that worker's thread touches its entry. Padded to keep the
  // workers' entries on different lines (no alignas: see pad_before_pending_).
  // Takes of a worker between its catch-ups of the outside index (catch_up_outside): a try_lock per period.
  static constexpr std::size_t k_catch_up_period = 256;
  struct credit {
    std::size_t pending = 0;
    std::size_t queued = 0;
    std::size_t until_catch_up = k_catch_up_period;  // takes left before this worker's next catch-up
    priority_task taken{};                           // the task take() returned, until run() copies it
    [[maybe_unused]] std::byte pad[128 - 3 * sizeof(std::size_t) - sizeof(priority_task)]{};
  };
  std::unique_ptr<credit[]> credits_;
  std::atomic<bool> claimed_{false};
  std::exception_ptr exception_;
};

// The three storages, ready to use.
using strict_priority_group = priority_group<strict_priority_storage<priority_task>>;
template <std::size_t K>
using relaxed_priority_group = priority_group<relaxed_priority_storage<priority_task, K>>;
using no_priority_group = priority_group<no_priority_storage<priority_task>>;

}  // namespace fj
