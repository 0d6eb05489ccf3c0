#pragma once
// Fault injection for tests: with -DFJ_FAULT_INJECTION=1 the segmented stack can be told to fail every k-th
// frame allocation and/or every k-th stacklet allocation with std::bad_alloc, and it counts the frames it
// hands out and takes back, so that a test can check that every frame was freed after any mix of failures.
// Without FJ_FAULT_INJECTION the hooks are empty inline functions and the stack compiles to what it would be
// without them (the frame allocation is the hottest path of the library). Like FJ_CHAOS, this is a test-build
// switch: every translation unit of a program must agree on it.

#include <cstdint>

#if defined(FJ_FAULT_INJECTION) && FJ_FAULT_INJECTION
#include <atomic>
#include <new>
#endif

namespace fj::detail {

#if defined(FJ_FAULT_INJECTION) && FJ_FAULT_INJECTION

inline constexpr bool k_fault_injection = true;

// The process-wide fault plan and counters. Counting is by attempt over all threads, so with several workers
// which allocation fails depends on the interleaving; with one worker a plan is deterministic.
class fault_injection {
 public:
  struct plan {
    // The i-th frame allocation attempt (1-based, counted from arm()) fails if frame_period != 0 and
    // (i + frame_phase) % frame_period == 0. Frames are all blocks taken from a segmented stack (coroutine
    // frames and fj::scratch arrays).
    std::uint64_t frame_period = 0;
    std::uint64_t frame_phase = 0;
    // The same for stacklets (the heap blocks a stack is made of, stack.md).
    std::uint64_t stacklet_period = 0;
    std::uint64_t stacklet_phase = 0;
  };

  // Starts a plan and restarts the attempt counts. Call it while no task runs (the pool's workers see it
  // through the submission of the next root).
  static void arm(const plan& p) noexcept {
    // relaxed: ordered before any allocation it should affect by the submission that starts the work.
    frame_attempts_.store(0, std::memory_order_relaxed);
    stacklet_attempts_.store(0, std::memory_order_relaxed);
    frame_period_.store(p.frame_period, std::memory_order_relaxed);
    frame_phase_.store(p.frame_phase, std::memory_order_relaxed);
    stacklet_period_.store(p.stacklet_period, std::memory_order_relaxed);
    stacklet_phase_.store(p.stacklet_phase, std::memory_order_relaxed);
  }
  static void disarm() noexcept { arm(plan{}); }

  // Frames handed out and taken back since the program started (balanced whenever no frame is live).
  [[nodiscard]] static std::uint64_t frames_allocated() noexcept { return load(frames_allocated_); }
  [[nodiscard]] static std::uint64_t frames_freed() noexcept { return load(frames_freed_); }
  // std::bad_alloc thrown by the plan since the program started.
  [[nodiscard]] static std::uint64_t frame_faults() noexcept { return load(frame_faults_); }
  [[nodiscard]] static std::uint64_t stacklet_faults() noexcept { return load(stacklet_faults_); }

  // ---- hooks called by segmented_stack ----

  static void before_frame_allocation() {
    if (due(frame_attempts_, frame_period_, frame_phase_)) {
      bump(frame_faults_);
      throw std::bad_alloc();
    }
  }
  static void before_stacklet_allocation() {
    if (due(stacklet_attempts_, stacklet_period_, stacklet_phase_)) {
      bump(stacklet_faults_);
      throw std::bad_alloc();
    }
  }
  static void frame_allocated() noexcept { bump(frames_allocated_); }
  static void frame_freed() noexcept { bump(frames_freed_); }

 private:
  static std::uint64_t load(const std::atomic<std::uint64_t>& c) noexcept {
    // relaxed: statistics; the test reads them after joining the work they count (sync_wait returned).
    return c.load(std::memory_order_relaxed);
  }
  static void bump(std::atomic<std::uint64_t>& c) noexcept {
    // relaxed: the read-modify-write alone keeps the count exact; readers synchronise through sync_wait.
    c.fetch_add(1, std::memory_order_relaxed);
  }
  static bool due(std::atomic<std::uint64_t>& attempts, const std::atomic<std::uint64_t>& period,
                  const std::atomic<std::uint64_t>& phase) noexcept {
    // relaxed: the plan was published by the submission that started the work; the counter only needs
    // atomicity.
    std::uint64_t const k = period.load(std::memory_order_relaxed);
    if (k == 0) return false;
    std::uint64_t const i = attempts.fetch_add(1, std::memory_order_relaxed) + 1;
    return (i + phase.load(std::memory_order_relaxed)) % k == 0;
  }

  static inline std::atomic<std::uint64_t> frame_period_{0};
  static inline std::atomic<std::uint64_t> frame_phase_{0};
  static inline std::atomic<std::uint64_t> stacklet_period_{0};
  static inline std::atomic<std::uint64_t> stacklet_phase_{0};
  static inline std::atomic<std::uint64_t> frame_attempts_{0};
  static inline std::atomic<std::uint64_t> stacklet_attempts_{0};
  static inline std::atomic<std::uint64_t> frames_allocated_{0};
  static inline std::atomic<std::uint64_t> frames_freed_{0};
  static inline std::atomic<std::uint64_t> frame_faults_{0};
  static inline std::atomic<std::uint64_t> stacklet_faults_{0};
};

#else

inline constexpr bool k_fault_injection = false;

// The hooks only: no plan and no counters, so that code relying on them fails to compile in a normal build.
class fault_injection {
 public:
  static void before_frame_allocation() noexcept {}
  static void before_stacklet_allocation() noexcept {}
  static void frame_allocated() noexcept {}
  static void frame_freed() noexcept {}
};

#endif

}  // namespace fj::detail
