#pragma once
// The geometric segmented stack on which every coroutine frame is allocated (libfork paper, Section III-A).
// Protocol and memory bound: docs/protocols/stack.md.
//
// A stack is a doubly linked list of stacklets: heap blocks that start with a small header (stacklet below)
// followed by the region frames are bumped into. The current stacklet's stack pointer, base and limit are
// copied into the segmented_stack object itself, so the hot paths touch no header:
//   allocate:   load sp, compare with limit, store sp + n.
//   deallocate: store sp = p, then one predictable branch for "the stacklet became empty".
// Everything else (a new stacklet, the cache, moving back, accounting, errors) is out of line and cold.
//
// Deviations from the paper, each argued in stack.md:
//   - The header is 32 bytes (prev, next, saved sp, limit; the base is implicit), not 48.
//   - Sizes are those of whole heap blocks (header included); the bottom stacklet is always
//     k_first_stacklet_bytes and is kept until the stack is destroyed. A request that does not fit an empty
//     bottom stacklet gets a stacklet chained after it instead of replacing it, so the bottom's size never
//     depends on history.
//   - When a new stacklet must be made and the cached one is too small, the cache is freed first.
//   - Theorem 1's 4M does not hold for the paper's own rules (stack.md "Memory bound" has a counterexample);
//     what this stack guarantees, for M bytes in use, is 3 * k_first_stacklet_bytes + c * log2(M + c) + 8M.
// A stack may hold at most the stack budget of the thread that grows it (pool_options::stack_budget on a
// worker, stack.md "Stack budget"); checked only when a stacklet is made.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <new>
#include <utility>

#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/fault_injection.hpp"
#include "forkjoin/detail/sanitizers.hpp"
#include "forkjoin/detail/slow_path.hpp"
#include "forkjoin/errors.hpp"

#if FJ_DETAIL_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace fj::detail {

inline constexpr std::size_t k_frame_align = __STDCPP_DEFAULT_NEW_ALIGNMENT__;
static_assert((k_frame_align & (k_frame_align - 1)) == 0, "frame alignment must be a power of two");

// Whether frames on stacklets are poisoned for AddressSanitizer while they are not allocated.
inline constexpr bool k_stack_poisoning = asan_build;

// The checked builds: there deallocate() checks that it frees the last allocation and fork/call that it
// starts the task made last (a violation stops the process with a message instead of corrupting the stack);
// other builds do not check. The compiled library and the code that uses it must agree (build_mode.hpp), so
// the CMake target passes FJ_STACK_CHECKS=0/1, the library's own choice, to everything that links it; without
// it, checks are on where NDEBUG is not defined, or under AddressSanitizer.
#if defined(FJ_STACK_CHECKS)
inline constexpr bool k_stack_checks = FJ_STACK_CHECKS != 0;
#elif !defined(NDEBUG) || FJ_DETAIL_ASAN
inline constexpr bool k_stack_checks = true;
#else
inline constexpr bool k_stack_checks = false;
#endif

class segmented_stack;

// The most stacklet memory (bytes of heap blocks, headers and the cache included) one stack may hold while
// it is grown on this thread. A pool's workers set it to pool_options::stack_budget; other threads have no
// limit, except while sync_wait creates a root frame (stack_budget_scope).
inline constinit thread_local std::size_t tls_stack_budget = ~std::size_t{0};

// Why the last allocation on this thread failed, between segmented_stack::try_allocate_slow() and its
// rethrow.
inline thread_local std::exception_ptr tls_allocation_failure;

// Sets this thread's stack budget for a scope, then restores it.
class stack_budget_scope {
 public:
  explicit stack_budget_scope(std::size_t budget) noexcept : saved_(tls_stack_budget) {
    tls_stack_budget = budget;
  }
  ~stack_budget_scope() { tls_stack_budget = saved_; }
  stack_budget_scope(const stack_budget_scope&) = delete;
  stack_budget_scope& operator=(const stack_budget_scope&) = delete;

 private:
  std::size_t saved_;
};

// Process-wide bytes of stacklet memory (headers included), for the memory-bound reports. Updated only when a
// stacklet is created or freed, never on the hot path.
struct stack_memory {
  [[nodiscard]] static std::size_t current() noexcept {
    // relaxed: a statistic; nothing else is published through it.
    return current_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] static std::size_t peak() noexcept {
    // relaxed: a statistic; nothing else is published through it.
    return peak_.load(std::memory_order_relaxed);
  }
  // Sets the peak to the current value, so that a later peak() reports the high-water mark since this call.
  static void reset_peak() noexcept {
    // relaxed: a statistic; the caller orders it with the work it measures (e.g. by joining threads).
    peak_.store(current_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  }

 private:
  friend class segmented_stack;

  static void add(std::size_t bytes) noexcept {
    // relaxed: a statistic; the read-modify-write alone keeps the count exact under concurrent updates.
    const std::size_t now = current_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    // relaxed: the peak is a monotonic maximum; the CAS loop only has to avoid losing a larger value.
    std::size_t seen = peak_.load(std::memory_order_relaxed);
    while (seen < now &&
           !peak_.compare_exchange_weak(seen, now, std::memory_order_relaxed, std::memory_order_relaxed)) {
    }
  }
  static void sub(std::size_t bytes) noexcept {
    // relaxed: a statistic, as in add().
    current_.fetch_sub(bytes, std::memory_order_relaxed);
  }

  static inline std::atomic<std::size_t> current_{0};
  static inline std::atomic<std::size_t> peak_{0};
};

// A stack of frames owned by one thread at a time. It contains no synchronisation: whoever moves it to
// another thread must order that move (stack.md "Ownership between workers"). Non-copyable and non-movable
// because the runtime keeps pointers to it.
class segmented_stack {
  struct refuse_tag {};
  constexpr explicit segmented_stack(refuse_tag) noexcept : refuses_(true) {}

 public:
  // Size of the heap block of the bottom stacklet: one page, which malloc serves without mmap and which holds
  // about twenty frames of 200 bytes (stack.md "Stacklets"). No stacklet is made until the first allocate(),
  // because the runtime creates an empty stack at every steal.
  static constexpr std::size_t k_first_stacklet_bytes = 4096;

 private:
  struct alignas(k_frame_align) stacklet {
    stacklet* prev;    // towards the bottom of the stack; null for the bottom stacklet
    stacklet* next;    // the cached stacklet, when this one is current; otherwise the one above
    std::byte* sp;     // the stack pointer, saved while another stacklet is current
    std::byte* limit;  // one past the end of the block; the frames start right after this header

    [[nodiscard]] std::byte* base() noexcept { return reinterpret_cast<std::byte*>(this) + sizeof(stacklet); }
    [[nodiscard]] const std::byte* base() const noexcept {
      return reinterpret_cast<const std::byte*>(this) + sizeof(stacklet);
    }
    [[nodiscard]] std::size_t block_bytes() const noexcept {
      return static_cast<std::size_t>(limit - reinterpret_cast<const std::byte*>(this));
    }
    [[nodiscard]] std::size_t capacity() const noexcept { return block_bytes() - sizeof(stacklet); }
  };
  static_assert(sizeof(stacklet) % k_frame_align == 0, "frames right after the header must stay aligned");

 public:
  // Bytes of header at the start of every stacklet (the paper's c).
  static constexpr std::size_t k_stacklet_header_bytes = sizeof(stacklet);

  segmented_stack() noexcept = default;

  // The stack that threads which are not workers see as theirs: it holds nothing and every allocation from it
  // fails with fj::not_in_worker_error. Being a stack with no room, it needs no test of its own on the fast
  // path of allocate(): a frame created outside a worker simply takes the slow path. Never written to.
  [[nodiscard]] static constexpr segmented_stack* no_worker() noexcept { return &none_; }
  segmented_stack(const segmented_stack&) = delete;
  segmented_stack& operator=(const segmented_stack&) = delete;
  segmented_stack(segmented_stack&&) = delete;
  segmented_stack& operator=(segmented_stack&&) = delete;

  ~segmented_stack() {
    if (!empty()) {
      internal_error("segmented_stack destroyed while frames are still allocated on it");
    }
    if (cur_ != nullptr) {
      // The stack is empty, so cur_ is the bottom stacklet and at most the cache lies above it.
      if (cur_->next != nullptr) {
        release(cur_->next);
      }
      release(cur_);
    }
  }

  // Returns n bytes aligned to k_frame_align (n is rounded up to a multiple of it; 0 counts as 1).
  // Throws std::bad_alloc if a new stacklet is needed and cannot be made, fj::stack_budget_error if it would
  // take the stack over tls_stack_budget; the stack's frames are unchanged either way.
  [[nodiscard]] void* allocate(std::size_t n) {
    fault_injection::before_frame_allocation();
    // The test is "the new top is within the limit": one compare of the value that is then stored (a frame's
    // n is a compile-time constant, so the first test folds away in a task's ramp). n - 1 wraps for n == 0,
    // sending it to the slow path; n below k_fast_bytes cannot wrap the address (or round_up). Addresses
    // are compared as integers: the no_worker() stack's null sp_ must not be offset as a pointer.
    std::uintptr_t const top = reinterpret_cast<std::uintptr_t>(sp_);
    if (n - 1 < k_fast_bytes && top + round_up(n) <= reinterpret_cast<std::uintptr_t>(limit_)) [[likely]] {
      return bump(n, round_up(n));
    }
    void* const p = try_allocate_slow(n);
    if (p == nullptr) [[unlikely]]
      rethrow_allocation_failure();
    return p;
  }

  // Frees p, which must be the last allocation still live, made with the same n.
  void deallocate(void* p, std::size_t n) noexcept {
    auto* const q = static_cast<std::byte*>(p);
    // A frame freed on a thread that is not a worker: an fj::task moved off its worker and dropped there. The
    // shared no_worker() stack must never be written (it would stop refusing allocations).
    if (refuses_) [[unlikely]]
      freed_off_worker();
    if constexpr (k_stack_checks) {
      check_last(q, n);
    }
    free_top(q);
  }

  // Frees p, the last allocation still live, whatever its size: for a frame whose size only its compiler-made
  // destroy function knows.
  void deallocate_last(void* p) noexcept {
    auto* const q = static_cast<std::byte*>(p);
    if constexpr (k_stack_checks) {
      if (!(q >= base_ && q < sp_)) [[unlikely]] {
        internal_error("segmented_stack::deallocate_last of a block outside the current stacklet");
      }
    }
    free_top(q);
  }

  // For a block that must be freed by a thread that does not own this stack: an fj::scratch array destroyed
  // while its task unwinds on a thief, before the implicit join, with the forked children's frames still
  // above it on this stack. The block (made by allocate(n)) is queued instead and freed by the owner once it
  // is on top again: release_abandoned_on_top(), called whenever a join hands this stack back (stack.md
  // "Abandoned blocks"). The block's own last k_abandon_trailer_bytes hold the queue node, so this allocates
  // nothing; the lock is taken only here and there, never on a fork or a join that nobody stole from. Whoever
  // makes the block reserves those bytes (fj::scratch does): the rest of it may still be written by running
  // children, whose results go into the array.
  static constexpr std::size_t k_abandon_trailer_bytes = 16;
  void abandon(void* p, std::size_t n) noexcept {
    auto* const q = static_cast<std::byte*>(p);
    std::byte* const at = q + round_up(n == 0 ? 1 : n) - sizeof(abandoned_block);
    unpoison(at, sizeof(abandoned_block));
    auto* const node = ::new (static_cast<void*>(at)) abandoned_block{q, nullptr};
    std::lock_guard lock(abandoned_mutex_);
    node->next = abandoned_;
    abandoned_ = node;
    // relaxed: the owner reads it after the join that hands it the stack, which orders this store before that
    // read (the abandoning thread arrives at that join later in its program order); the lock orders the
    // queue.
    has_abandoned_.store(true, std::memory_order_relaxed);
  }

  // Frees the abandoned blocks that are on top of the stack, the most recent first, until the top is a live
  // block. Called by the owner; cheap when nothing was abandoned.
  void release_abandoned_on_top() noexcept {
    // relaxed: see abandon().
    if (!has_abandoned_.load(std::memory_order_relaxed)) [[likely]]
      return;
    release_abandoned_slow();
  }

  // True if [p, p + n) is the last allocation still live: the only block deallocate() may free next.
  [[nodiscard]] bool is_last(const void* p, std::size_t n) const noexcept {
    const auto* const q = static_cast<const std::byte*>(p);
    return q >= base_ && q + round_up(n == 0 ? 1 : n) == sp_;
  }

  // Checked builds (k_stack_checks) only: false if the block at p is certainly not the top allocation (it is
  // not live in the current stacklet, or another allocation was made after it and is still live). After a
  // free the newest allocation is no longer known, and any live block passes.
  [[nodiscard]] bool may_be_top(const void* p) const noexcept {
    const auto* const q = static_cast<const std::byte*>(p);
    return (newest_ == nullptr || newest_ == q) && q >= base_ && q < sp_;
  }

  // True if p lies in one of this stack's stacklets below the current stack pointer: a live block of this
  // stack. A walk over the stacklets, for slow paths only.
  [[nodiscard]] bool holds(const void* p) const noexcept {
    const auto* const q = static_cast<const std::byte*>(p);
    if (cur_ == nullptr) return false;
    if (q >= base_ && q < sp_) return true;
    for (const stacklet* s = cur_->prev; s != nullptr; s = s->prev) {
      if (q >= s->base() && q < s->sp) return true;
    }
    return false;
  }

  [[nodiscard]] bool empty() const noexcept {
    // Every stacklet but the bottom one is non-empty while it is current (pop_stacklet moves back eagerly).
    return sp_ == base_;
  }

  // Bytes allocated now, each allocation counted rounded up to k_frame_align.
  [[nodiscard]] std::size_t used_bytes() const noexcept {
    return used_below_ + static_cast<std::size_t>(sp_ - base_);
  }

  // Bytes of heap blocks held: all stacklets including the cached one, headers included.
  [[nodiscard]] std::size_t reserved_bytes() const noexcept { return reserved_; }

 private:
  // Requests below this size take the one-compare fast path of allocate().
  static constexpr std::size_t k_fast_bytes = std::size_t{1} << 32;

  static constexpr std::size_t round_up(std::size_t n) noexcept {
    return (n + (k_frame_align - 1)) & ~(k_frame_align - 1);
  }

  static void poison([[maybe_unused]] std::byte* p, [[maybe_unused]] std::size_t n) noexcept {
#if FJ_DETAIL_ASAN
    ASAN_POISON_MEMORY_REGION(p, n);
#endif
  }
  static void unpoison([[maybe_unused]] std::byte* p, [[maybe_unused]] std::size_t n) noexcept {
#if FJ_DETAIL_ASAN
    ASAN_UNPOISON_MEMORY_REGION(p, n);
#endif
  }

  [[noreturn, gnu::cold, gnu::noinline]] static void freed_off_worker() noexcept {
    fatal(
        "a task was destroyed on a thread that is not a forkjoin worker (an unstarted fj::task must be "
        "dropped on the worker that created it)");
  }

  void check_last(std::byte* q, std::size_t n) const noexcept {
    if (!is_last(q, n)) [[unlikely]] {
      internal_error("segmented_stack::deallocate of a block that is not the last allocation");
    }
  }

  // A stacklet of `bytes` for a request of `request` bytes would take the stack over its budget.
  [[noreturn, gnu::cold, gnu::noinline]] void budget_exceeded(std::size_t request, std::size_t bytes) const {
    std::size_t const max = ~std::size_t{0};
    throw stack_budget_error(tls_stack_budget, request, bytes > max - reserved_ ? max : reserved_ + bytes);
  }

  // Makes a stacklet of `bytes` (header included) linked after `prev`, for a request of `request` bytes;
  // poisoned until allocated from.
  [[nodiscard]] stacklet* make_stacklet(std::size_t bytes, stacklet* prev, std::size_t request) {
    std::size_t const budget = tls_stack_budget;
    if (reserved_ > budget || bytes > budget - reserved_) budget_exceeded(request, bytes);
    fault_injection::before_stacklet_allocation();
    void* const mem = ::operator new(bytes);
    // The analyzer takes bytes == SIZE_MAX (grown_size() saturates, on a path no real stack can reach) for
    // storage of -1 bytes.
    // NOLINTNEXTLINE(clang-analyzer-cplusplus.PlacementNew)
    auto* const s = ::new (mem) stacklet{prev, nullptr, nullptr, static_cast<std::byte*>(mem) + bytes};
    s->sp = s->base();
    poison(s->base(), s->capacity());
    reserved_ += bytes;
    stack_memory::add(bytes);
    return s;
  }

  void release(stacklet* s) noexcept {
    const std::size_t bytes = s->block_bytes();
    unpoison(s->base(), s->capacity());
    ::operator delete(static_cast<void*>(s), bytes);
    reserved_ -= bytes;
    stack_memory::sub(bytes);
  }

  // Block size for a stacklet above one of `below` bytes that must hold `need` bytes: the paper's
  // max(2 * previous, what the request needs).
  [[nodiscard]] static std::size_t grown_size(std::size_t below, std::size_t need) {
    constexpr std::size_t max = ~std::size_t{0};
    if (need > max - sizeof(stacklet)) {
      throw std::bad_alloc();
    }
    const std::size_t doubled = below > max / 2 ? max : 2 * below;
    const std::size_t fits = need + sizeof(stacklet);
    return doubled > fits ? doubled : fits;
  }

  // The slow path of allocate() in the calling convention of the hot path's slow paths (slow_path.hpp), which
  // must not throw: a failure is kept in tls_allocation_failure and rethrown by rethrow_allocation_failure(),
  // in the usual convention.
  [[gnu::cold]] FJ_DETAIL_SLOW_PATH void* try_allocate_slow(std::size_t n) noexcept {
    if (refuses_) return nullptr;  // no_worker(): rethrow_allocation_failure() reports it
    try {
      return allocate_slow(n);
    } catch (...) {
      tls_allocation_failure = std::current_exception();
      return nullptr;
    }
  }

  [[noreturn, gnu::cold, gnu::noinline]] void rethrow_allocation_failure() {
    if (refuses_) throw not_in_worker_error();
    std::rethrow_exception(std::exchange(tls_allocation_failure, nullptr));
  }

  void* allocate_slow(std::size_t n) {
    const std::size_t want = n == 0 ? 1 : n;
    if (want > ~std::size_t{0} - (k_frame_align - 1)) {
      throw std::bad_alloc();
    }
    const std::size_t need = round_up(want);

    if (cur_ == nullptr) {
      cur_ = make_stacklet(k_first_stacklet_bytes, nullptr, want);
      base_ = sp_ = cur_->base();
      limit_ = cur_->limit;
    }
    // A request of k_fast_bytes or more comes here even when it fits.
    if (need <= static_cast<std::size_t>(limit_ - sp_)) {
      return bump(want, need);
    }

    // The request does not fit the current stacklet: continue on the cache if it fits, else on a new one.
    stacklet* next = cur_->next;
    if (next == nullptr || next->capacity() < need) {
      const std::size_t bytes = grown_size(cur_->block_bytes(), need);
      if (next != nullptr) {
        cur_->next = nullptr;
        release(next);
      }
      next = make_stacklet(bytes, cur_, want);
      cur_->next = next;
    }
    cur_->sp = sp_;
    used_below_ += static_cast<std::size_t>(sp_ - base_);
    cur_ = next;
    base_ = sp_ = next->base();
    limit_ = next->limit;
    return bump(want, need);
  }

  // Allocates at the top: `need` bytes (want rounded up), which the caller checked fit the current stacklet.
  void* bump(std::size_t want, std::size_t need) noexcept {
    std::byte* const p = sp_;
    sp_ = p + need;
    unpoison(p, want);
    if constexpr (k_stack_checks) newest_ = p;
    fault_injection::frame_allocated();
    return p;
  }

  // Frees everything from q (a block's start in the current stacklet) to the top.
  void free_top(std::byte* q) noexcept {
    poison(q, static_cast<std::size_t>(sp_ - q));
    fault_injection::frame_freed();
    sp_ = q;
    if constexpr (k_stack_checks) newest_ = nullptr;
    // Only a stacklet's bottom allocation empties it: once per stacklet crossing, so well predicted.
    if (q == base_) [[unlikely]] {
      pop_stacklet();
    }
  }

  // Kept in the last bytes of the abandoned block itself, so its end is the node's end.
  struct abandoned_block {
    std::byte* begin;  // the block's first byte: the stack pointer once the block is freed
    abandoned_block* next;
  };
  static_assert(sizeof(abandoned_block) == k_abandon_trailer_bytes);

  [[gnu::cold, gnu::noinline]] void release_abandoned_slow() noexcept {
    std::lock_guard lock(abandoned_mutex_);
    bool freed = true;
    while (freed) {
      freed = false;
      for (abandoned_block** link = &abandoned_; *link != nullptr; link = &(*link)->next) {
        abandoned_block* const node = *link;
        if (reinterpret_cast<std::byte*>(node + 1) != sp_ || node->begin < base_) continue;
        *link = node->next;
        free_top(node->begin);
        freed = true;
        break;
      }
    }
    // relaxed: see abandon().
    has_abandoned_.store(abandoned_ != nullptr, std::memory_order_relaxed);
  }

  // The current stacklet has just become empty: move back to the one below, keeping the emptied one as the
  // cache if it is at most twice as large as that one (paper's rule against hot-splitting), else freeing it.
  [[gnu::cold]] FJ_DETAIL_SLOW_PATH void pop_stacklet() noexcept {
    stacklet* const emptied = cur_;
    stacklet* const below = emptied->prev;
    if (below == nullptr) {
      return;  // the bottom stacklet: the stack is now empty and keeps it
    }
    if (emptied->next != nullptr) {
      release(emptied->next);  // at most one cached stacklet
      emptied->next = nullptr;
    }
    if (emptied->block_bytes() > 2 * below->block_bytes()) {
      below->next = nullptr;
      release(emptied);
    }
    cur_ = below;
    base_ = below->base();
    sp_ = below->sp;
    limit_ = below->limit;
    used_below_ -= static_cast<std::size_t>(sp_ - base_);
  }

  // Hot state first: the current stacklet's stack pointer and bounds.
  std::byte* sp_ = nullptr;
  std::byte* limit_ = nullptr;
  std::byte* base_ = nullptr;
  stacklet* cur_ = nullptr;
  std::size_t used_below_ = 0;  // bytes used on the stacklets below the current one
  // The most recent allocation, or null after a free (maintained in checked builds only: may_be_top()).
  std::byte* newest_ = nullptr;
  std::size_t reserved_ = 0;    // bytes of the blocks held, for reserved_bytes()
  bool const refuses_ = false;  // no_worker()

  static segmented_stack none_;
  // Blocks freed by threads that do not own the stack (abandon()), waiting to be on top.
  abandoned_block* abandoned_ = nullptr;
  std::atomic<bool> has_abandoned_{false};
  std::mutex abandoned_mutex_;  // guards abandoned_
};

inline constinit segmented_stack segmented_stack::none_{segmented_stack::refuse_tag{}};

}  // namespace fj::detail
