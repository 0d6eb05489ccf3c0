#pragma once
// An event count: lets a thread sleep until "something may have changed" without losing a wake-up that races
// with its decision to sleep. The protocol and a proof sketch are in docs/protocols/sleep.md §"Event count".
//
// Use (the re-check is what makes it correct; docs/traps.md "Event count: re-check and always notify"):
//
//   waiter                                   notifier
//   while (!ready()) {                        make_ready();          // any store, any order
//     auto key = ec.prepare_wait();           ec.notify_one();       // or notify_all()
//     if (ready()) { ec.cancel_wait(); break; }
//     ec.wait(key);
//   }
//
// await(ready) runs the waiter's loop for you.

#include <atomic>
#include <bit>
#include <climits>
#include <cstdint>

#if defined(__linux__) && !defined(FJ_EVENT_COUNT_NO_FUTEX)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#define FJ_EVENT_COUNT_FUTEX 1
#else
#define FJ_EVENT_COUNT_FUTEX 0
#endif

namespace fj {

// One 64-bit word: the epoch (bumped by every notify) in the high 32 bits, the number of registered waiters
// in the low 32 bits. All changes are read-modify-writes of that one word, so they are totally ordered (its
// modification order) and every RMW sees the latest value: that total order is the whole proof (sleep.md).
//
// Deviations from the classic design (Dmitry Vyukov's eventcount, also folly's EventCount):
//  - notify always does its read-modify-write of the epoch and decides whether to make the wake system call
//    from the waiter count that this RMW read, never from a separate load (a plain load that skips the RMW
//    loses wake-ups; docs/traps.md "Event count: re-check and always notify");
//  - the orders are acquire/release on the one word rather than seq_cst fences, so ThreadSanitizer checks it
//    as written: there are no fences and no TSan-only mode.
//
// On Linux the waiter sleeps in futex(FUTEX_WAIT_PRIVATE) on the 32-bit half of the word that holds the
// epoch; elsewhere (or with FJ_EVENT_COUNT_NO_FUTEX defined) it uses C++20 std::atomic::wait on the whole
// word.
class event_count {
 public:
  // What prepare_wait() returns and wait() needs: the epoch at registration. Opaque on purpose.
  class key {
   public:
    key(const key&) noexcept = default;
    key& operator=(const key&) noexcept = default;

   private:
    friend class event_count;
    explicit key(std::uint32_t epoch) noexcept : epoch_(epoch) {}
    std::uint32_t epoch_;
  };

  event_count() noexcept = default;
  event_count(const event_count&) = delete;
  event_count& operator=(const event_count&) = delete;
  event_count(event_count&&) = delete;
  event_count& operator=(event_count&&) = delete;
  ~event_count() = default;

  // Registers the calling thread as a waiter and returns the current epoch. Must be followed, on the same
  // thread, by exactly one cancel_wait() or wait(key) before the next prepare_wait().
  [[nodiscard]] key prepare_wait() noexcept {
    // acquire: pairs with the release RMW in notify(). If that notify comes first in the word's modification
    // order, we synchronize with it, so the caller's re-check sees what the notifier published before it.
    // (The RMW itself needs no release: waiting publishes nothing.)
    const std::uint64_t old =
        state_.fetch_add(k_one_waiter, std::memory_order_acquire);  // model: ec.prepare_wait
    return key(epoch_of(old));
  }

  // Withdraws the registration of prepare_wait() without sleeping (the re-check found the condition true).
  void cancel_wait() noexcept {
    // relaxed: only the waiter count changes; any RMW continues the release sequences of earlier notifies.
    state_.fetch_sub(k_one_waiter, std::memory_order_relaxed);  // model: ec.cancel_wait
  }

  // Sleeps until the epoch differs from k, that is until some notify that came after the prepare_wait() that
  // returned k, then withdraws the registration. On return the caller sees everything that notifier (and
  // every earlier one) published before notifying; it must re-check its condition, as a notify may have been
  // meant for another waiter.
  void wait(key k) noexcept {
    for (;;) {
      // acquire: pairs with the release RMW in notify() that moved the epoch past k (or with any later one:
      // every RMW of the word is in its release sequence).
      const std::uint64_t now = state_.load(std::memory_order_acquire);  // model: ec.wait.load
      if (epoch_of(now) != k.epoch_) {
        break;
      }
      sleep(now);
    }
    // relaxed: as in cancel_wait().
    state_.fetch_sub(k_one_waiter, std::memory_order_relaxed);  // model: ec.wait.leave
  }

  // Wakes at least one thread whose prepare_wait() came before this call in the word's modification order,
  // if there is one; cheap (no system call) when no thread is registered.
  void notify_one() noexcept { notify(1); }

  // Wakes every thread whose prepare_wait() came before this call.
  void notify_all() noexcept { notify(INT_MAX); }

  // The waiter's side of the protocol in one call: returns once ready() is true. ready() is called at least
  // once, and again after each wake-up (through this copy: pass a lambda that captures by reference).
  template <class Ready>
  void await(Ready ready) {
    while (!ready()) {
      const key k = prepare_wait();
      if (ready()) {
        cancel_wait();
        return;
      }
      wait(k);
    }
  }

  // A snapshot of the number of registered waiters, for statistics and tests; stale by the time it returns.
  [[nodiscard]] std::uint32_t waiters() const noexcept {
    // relaxed: a hint, nothing is read through it.
    return static_cast<std::uint32_t>(state_.load(std::memory_order_relaxed) &
                                      k_waiter_mask);  // model: none (hint)
  }

 private:
  static constexpr std::uint64_t k_one_waiter = 1;
  static constexpr std::uint64_t k_waiter_mask = (std::uint64_t{1} << 32) - 1;
  static constexpr std::uint64_t k_one_epoch = std::uint64_t{1} << 32;

  static std::uint32_t epoch_of(std::uint64_t state) noexcept {
    return static_cast<std::uint32_t>(state >> 32);
  }

  void notify(int how_many) noexcept {
    // release: pairs with the acquire RMW in prepare_wait() and the acquire load in wait(): publishes what
    // the caller did before notifying. The RMW is unconditional: whether anyone is registered is decided by
    // the value this RMW read, which is the latest in the word's modification order (sleep.md §"Event
    // count"). The epoch wraps modulo 2^32 (the add carries out of the word, not into the waiter count).
    const std::uint64_t old = state_.fetch_add(k_one_epoch, std::memory_order_release);  // model: ec.notify
    if ((old & k_waiter_mask) != 0) [[unlikely]] {
      wake(how_many);
    }
  }

#if FJ_EVENT_COUNT_FUTEX
  // The 32-bit half of state_ that holds the epoch, for the futex system calls. The kernel reads it; the C++
  // program only ever accesses state_ as a whole.
  std::uint32_t* epoch_word() noexcept {
    auto* words = reinterpret_cast<std::uint32_t*>(&state_);
    return std::endian::native == std::endian::little ? words + 1 : words;
  }

  [[gnu::cold]] [[gnu::noinline]] void sleep(std::uint64_t seen) noexcept {
    // The kernel compares the epoch word with the epoch we saw and sleeps only if they are equal, atomically
    // with queueing us; a notify's RMW that it misses is followed by that notify's FUTEX_WAKE. Returns early
    // on a signal or a spurious wake; wait() loops.
    ::syscall(SYS_futex, epoch_word(), FUTEX_WAIT_PRIVATE, epoch_of(seen), nullptr, nullptr, 0);
  }

  [[gnu::cold]] [[gnu::noinline]] void wake(int how_many) noexcept {
    ::syscall(SYS_futex, epoch_word(), FUTEX_WAKE_PRIVATE, how_many, nullptr, nullptr, 0);
  }

  static_assert(sizeof(std::atomic<std::uint64_t>) == 8 && std::atomic<std::uint64_t>::is_always_lock_free,
                "the futex half-word trick needs a plain lock-free 64-bit atomic");
#else
  [[gnu::cold]] [[gnu::noinline]] void sleep(std::uint64_t seen) noexcept {
    // acquire: as the load in wait(). Returns once the word differs from `seen` (a waiter registering also
    // changes it; wait() then re-reads the epoch and sleeps again).
    // model: none (the model follows the futex path; this fallback's acquire matches wait()'s load)
    state_.wait(seen, std::memory_order_acquire);
  }

  [[gnu::cold]] [[gnu::noinline]] void wake(int how_many) noexcept {
    // std::atomic::notify_one could wake a thread that is about to return anyway while another sleeps on a
    // value that includes other waiters' registrations; notify_all is always correct here.
    (void)how_many;
    state_.notify_all();
  }
#endif

  std::atomic<std::uint64_t> state_{0};
};

}  // namespace fj

#undef FJ_EVENT_COUNT_FUTEX
