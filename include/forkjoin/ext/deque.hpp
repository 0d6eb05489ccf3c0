#pragma once
// A growable Chase-Lev work-stealing deque: one owner pushes and pops at the bottom, any number of thieves
// steal from the top. The protocol, its three ordering modes and a proof sketch are in
// docs/protocols/deque.md.

#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "forkjoin/detail/atomics.hpp"
#include "forkjoin/detail/cpu_fence.hpp"
#include "forkjoin/detail/slow_path.hpp"
#include "forkjoin/errors.hpp"

namespace fj {

// What a deque can hold: values copied bit for bit into lock-free atomic slots. Default-constructible because
// the slots are value-initialised and a failed steal returns a default value.
template <class T>
concept deque_element =
    std::is_trivially_copyable_v<T> && std::default_initializable<T> && std::atomic<T>::is_always_lock_free;

enum class steal_status {
  empty,      // the deque looked empty
  lost_race,  // there was an item, but another thief or the owner took it first; worth retrying
  success,    // value holds the stolen item
  contended,  // there was an item, but another thief was claiming from this deque; try another victim
  declined,   // steal_if: the thief's test refused the item it saw; nothing was taken
};

template <deque_element T>
struct steal_result {
  steal_status status;
  T value;  // meaningful only when status == success
  // Whether this attempt issued the asymmetric mode's process-wide fence (a membarrier, which interrupts
  // every core running a thread of the process): at most one attempt at a time per deque does.
  bool heavy_fence = false;

  explicit operator bool() const noexcept { return status == steal_status::success; }
};

// How a deque orders pop against steal (docs/protocols/deque.md §"Modes"). In a TSan build both choices give
// the fence-free TSan mode.
enum class deque_fences {
  automatic,  // asymmetric (light fence in pop, membarrier in steal) if the platform allows, else symmetric
  symmetric,  // the paper's seq_cst fences on both sides
};

template <deque_element T>
class deque;

// The owner's handle: push and pop at the bottom. Only the one thread that owns the deque may use it.
template <deque_element T>
class deque_owner {
 public:
  // A handle to no deque, to be assigned one later (e.g. a thread_local set when its thread becomes the
  // owner). Named rather than a default constructor, so that an unbound handle is never made by accident.
  [[nodiscard]] static constexpr deque_owner unbound() noexcept { return deque_owner(nullptr); }

  // May allocate (and throw std::bad_alloc) only when the deque has to grow.
  void push(T value) { d_->push(value); }
  // Like push, but reports a failed growth by returning false (the deque is unchanged) instead of throwing.
  [[nodiscard]] bool try_push(T value) noexcept { return d_->try_push(value); }
  [[nodiscard]] std::optional<T> pop() noexcept { return d_->template pop_bottom<true>(); }
  // Like pop, for an owner that knows what it pushed last: true if the item was still there and is now taken,
  // without reading its slot.
  [[nodiscard]] bool pop_discard() noexcept { return d_->template pop_bottom<false>(); }
  [[nodiscard]] bool empty() const noexcept { return d_->owner_empty(); }
  // The index the next push will take: every item pushed from now on has an index at least this large
  // until the owner pops below it.
  [[nodiscard]] std::int64_t next_index() const noexcept { return d_->bottom_index(); }
  // Whether the handle has a deque (false for unbound()).
  [[nodiscard]] constexpr bool bound() const noexcept { return d_ != nullptr; }
  // Whether two handles are to the same deque.
  friend constexpr bool operator==(const deque_owner&, const deque_owner&) noexcept = default;

  // Called on the owner's thread: in asymmetric mode a thief's fence then interrupts only the core this
  // thread runs on, where the platform allows it, instead of every core running a thread of the process
  // (docs/protocols/deque.md, "Interrupting the victim's core only"). Call unbind_thread() on the same thread
  // before it exits; pushes and pops need neither.
  void bind_thread() noexcept { d_->bind_owner_thread(); }
  // Undoes bind_thread(); returns once no thief can still be reading the thread's CPU number.
  void unbind_thread() noexcept { d_->unbind_owner_thread(); }

 private:
  friend class deque<T>;
  constexpr explicit deque_owner(deque<T>* d) noexcept : d_(d) {}
  deque<T>* d_;
};

// A thief's handle: steal from the top. Any thread may use it, concurrently with the owner and other thieves.
template <deque_element T>
class deque_thief {
 public:
  [[nodiscard]] steal_result<T> steal() noexcept {
    auto nothing = []() noexcept {};
    return d_->steal(nothing);
  }
  // Like steal(), and calls before_claim() once the thief has seen the item it is about to claim (after its
  // acquire of bottom, before its CAS on top). What before_claim() reads of the owner's state is at least as
  // new as the owner's state when it pushed that item, and, if the steal succeeds, not newer than the
  // owner's state when it found the item gone (a failed pop): docs/protocols/deque.md, "Reading the owner's
  // state in a steal". The runtime reads there which stack the owner's continuations live on.
  template <class BeforeClaim>
    requires std::is_nothrow_invocable_v<BeforeClaim&>
  [[nodiscard]] steal_result<T> steal(BeforeClaim before_claim) noexcept {
    return d_->steal(before_claim);
  }
  // Like steal(before_claim), but before_claim(index) receives the index of the item the thief is about to
  // claim and returns whether to claim it: on false the thief leaves the deque as it found it (status
  // `declined`). Indices are those of deque_owner::next_index(). A thief that declines is one that stopped
  // before its CAS, which the protocol allows at any time (docs/protocols/deque.md, "Declining an item").
  template <class Accept>
    requires std::is_nothrow_invocable_r_v<bool, Accept&, std::int64_t>
  [[nodiscard]] steal_result<T> steal_if(Accept accept) noexcept {
    return d_->steal(accept);
  }
  // A snapshot that may be stale by the time it returns: a hint for choosing victims, not a guarantee.
  [[nodiscard]] bool empty() const noexcept { return d_->thief_empty(); }
  // The index of the oldest item, or of the next push if empty; only grows. A hint, as empty() is.
  [[nodiscard]] std::int64_t oldest_index() const noexcept { return d_->top_hint(); }

 private:
  friend class deque<T>;
  explicit deque_thief(deque<T>* d) noexcept : d_(d) {}
  deque<T>* d_;
};

// Chase-Lev deque with the memory orders of N. M. Lê, A. Pop, A. Cohen, F. Zappa Nardelli, "Correct and
// efficient work-stealing for weak memory models", PPoPP 2013 (Fig. 1). Deviations from the paper:
//  - the buffer pointer is published with a release store and read with an acquire load (the paper stores it
//    relaxed and loads it consume), so a thief that sees a newer buffer also sees the items copied into it;
//  - old buffers are kept until the destructor instead of being leaked or reclaimed: a thief may still be
//    reading one; growth is geometric, so they cost at most as much as the current buffer;
//  - indices are signed 64-bit (they never wrap in practice);
//  - asymmetric mode: pop's seq_cst fence becomes a compiler barrier and steal's a sys_membarrier, which
//    only one thief at a time may issue per deque (the others return "contended"), and steal returns
//    "empty" early, before its fence, when top >= bottom;
//  - TSan mode: no fences; the accesses to top and bottom that the fences ordered are seq_cst instead.
template <deque_element T>
class deque {
 public:
  // capacity: initial number of slots, a power of two. Throws fj::invalid_config_error otherwise.
  explicit deque(std::size_t capacity = 1024, deque_fences fences = deque_fences::automatic)
      : asymmetric_(!detail::tsan_build && fences == deque_fences::automatic &&
                    detail::enable_asymmetric_fences()) {
    if (capacity == 0 || (capacity & (capacity - 1)) != 0 || capacity > (std::size_t{1} << 62)) {
      throw invalid_config_error("deque capacity must be a power of two, got " + std::to_string(capacity));
    }
    rings_.push_back(std::make_unique<ring>(static_cast<std::int64_t>(capacity)));
    use_ring(rings_.back().get());
    owner_limit_ = owner_mask_ + 1;  // top_ is 0
  }

  deque(const deque&) = delete;
  deque& operator=(const deque&) = delete;
  deque(deque&&) = delete;
  deque& operator=(deque&&) = delete;
  ~deque() = default;

  [[nodiscard]] deque_owner<T> owner() noexcept { return deque_owner<T>(this); }
  [[nodiscard]] deque_thief<T> thief() noexcept { return deque_thief<T>(this); }

  // Whether this deque pairs a compiler barrier in pop with a membarrier in steal (fixed at construction).
  [[nodiscard]] bool uses_asymmetric_fences() const noexcept { return asymmetric_; }

  // Current number of slots; owner thread only (it changes when push grows the buffer).
  [[nodiscard]] std::size_t capacity() const noexcept { return static_cast<std::size_t>(owner_mask_ + 1); }

 private:
  friend class deque_owner<T>;
  friend class deque_thief<T>;

  // A circular buffer of 2^k atomic slots; slot i holds the item with index i mod 2^k.
  struct ring {
    explicit ring(std::int64_t cap)
        : mask(cap - 1), slots(new std::atomic<T>[static_cast<std::size_t>(cap)]) {}
    std::atomic<T>& at(std::int64_t i) const noexcept { return slots[static_cast<std::size_t>(i & mask)]; }
    std::int64_t mask;
    std::unique_ptr<std::atomic<T>[]> slots;
  };

  // ---- owner operations (docs/protocols/deque.md §"Operations") ----

  void push(T value) {
    if (!try_push(value)) throw std::bad_alloc();
  }

  // Returns false, leaving the deque unchanged, if it had to grow and the larger buffer could not be
  // allocated.
  [[nodiscard]] bool try_push(T value) noexcept {
    // relaxed: only the owner writes bottom_.
    const std::int64_t b = bottom_.load(std::memory_order_relaxed);  // model: deque.push.bottom
    if (b >= owner_limit_) [[unlikely]] {
      return push_at_limit(value, b);  // a tail call: the hot path keeps no registers for it
    }
    publish(value, b);
    return true;
  }

  // bottom_ has reached the limit computed from the last top_ that push read: the buffer may be full. Reads
  // top_ again and either moves the limit or grows the buffer.
  [[gnu::cold]] FJ_DETAIL_SLOW_PATH bool push_at_limit(T value, std::int64_t b) noexcept {
    // acquire: pairs with the successful CAS on top_ in steal(), so a thief's read of a slot happens before
    // we overwrite that slot on a later lap (for every slot below the limit set from this value).
    const std::int64_t t = top_.load(std::memory_order_acquire);  // model: deque.push.top
    if (b - t > owner_mask_) {
      return grow_and_push(value, t, b);
    }
    owner_limit_ = t + owner_mask_ + 1;
    publish(value, b);
    return true;
  }

  // Writes the slot for index b and makes it visible to thieves by moving bottom_ past it.
  void publish(T value, std::int64_t b) noexcept {
    // relaxed: published by the release below; a thief that reads it early discards it (its CAS fails).
    owner_slots_[static_cast<std::size_t>(b & owner_mask_)].store(
        value, std::memory_order_relaxed);  // model: deque.publish.slot
    if constexpr (detail::tsan_build) {
      // release: pairs with the seq_cst (acquire) load of bottom_ in steal(): publishes the slot.
      bottom_.store(b + 1, std::memory_order_release);  // model: deque.publish.bottom.tsan
    } else {
      // release fence: pairs with the acquire load of bottom_ in steal(): publishes the slot (and the
      // buffer).
      detail::release_fence();  // model: deque.publish.fence
      // relaxed: ordered by the fence above.
      bottom_.store(b + 1, std::memory_order_relaxed);  // model: deque.publish.bottom
    }
  }

  // pop() (Keep) or pop_discard() (!Keep): the same steps, the latter without reading the slot.
  template <bool Keep>
  using pop_result = std::conditional_t<Keep, std::optional<T>, bool>;

  template <bool Keep>
  pop_result<Keep> pop_bottom() noexcept {
    // relaxed: only the owner writes bottom_.
    const std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;  // model: deque.pop.bottom
    std::int64_t t = 0;
    if constexpr (detail::tsan_build) {
      // seq_cst store then seq_cst load: with the seq_cst loads in steal() the single total order forbids
      // "we miss the thief's CAS on top_ and the thief misses this decrement" (store buffering).
      // It is also a release, so a thief reading bottom_ from here is in a release sequence
      // (docs/traps.md "ThreadSanitizer does not understand fences").
      bottom_.store(b, std::memory_order_seq_cst);  // model: deque.pop.reserve.tsan
      t = top_.load(std::memory_order_seq_cst);     // model: deque.pop.top.tsan
    } else {
      // relaxed: ordered against the load of top_ by the fence that follows.
      bottom_.store(b, std::memory_order_relaxed);  // model: deque.pop.reserve
      if (asymmetric_) [[likely]] {
        // compiler barrier: pairs with the membarrier in steal() (docs/protocols/deque.md §"Asymmetric
        // mode").
        detail::compiler_fence();  // model: deque.pop.fence.asymmetric
      } else {
        // seq_cst fence: pairs with the seq_cst fence in steal() (store buffering on bottom_/top_).
        detail::seq_cst_fence();  // model: deque.pop.fence
      }
      // relaxed: ordered by the fence above; a stale value only sends us to the CAS below or to "empty".
      t = top_.load(std::memory_order_relaxed);  // model: deque.pop.top
    }

    if (t < b) [[likely]] {
      // More than one item: no thief can reach index b, so it is ours without a CAS.
      if constexpr (Keep) {
        // relaxed: the owner wrote this slot itself.
        return owner_slots_[static_cast<std::size_t>(b & owner_mask_)].load(  // model: deque.pop.slot
            std::memory_order_relaxed);
      } else {
        return true;
      }
    }
    if (t == b) {
      // The last item: race the thieves for it on top_. Its slot is read before the CAS: once a thief has
      // won, the owner may overwrite it.
      T value{};
      if constexpr (Keep) {
        // model: deque.pop.last.slot
        value = owner_slots_[static_cast<std::size_t>(b & owner_mask_)].load(std::memory_order_relaxed);
      }
      // seq_cst: the paper's order; pairs with the CAS on top_ in steal(), one of the two wins. acquire on
      // failure: pairs with the winning thief's CAS, so what it did before its CAS happens before whatever
      // we do after losing (docs/protocols/deque.md, "Reading the owner's state in a steal").
      const bool won = top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                                    std::memory_order_acquire);  // model: deque.pop.cas
      restore_bottom(b + 1);
      if (won) {
        if constexpr (Keep) {
          return value;
        } else {
          return true;
        }
      }
      return pop_result<Keep>{};
    }
    // Empty: undo the decrement.
    restore_bottom(b + 1);
    if constexpr (!detail::tsan_build) {
      // acquire fence: pairs with the CAS on top_ of the thief that took the last item (its value, or a later
      // thief's CAS in its release sequence, is the t read above), as the failed CAS above does. The TSan
      // build's seq_cst load of top_ is an acquire already.
      detail::acquire_fence();  // model: deque.pop.empty.fence
    }
    return pop_result<Keep>{};
  }

  void restore_bottom(std::int64_t b) noexcept {
    if constexpr (detail::tsan_build) {
      // seq_cst (at least release): a thief may read bottom_ from this store
      // (docs/traps.md "ThreadSanitizer does not understand fences").
      bottom_.store(b, std::memory_order_seq_cst);  // model: deque.restore.bottom.tsan
    } else {
      // relaxed: the paper's order; a thief reading it sees top_ >= bottom_ or fails its CAS.
      bottom_.store(b, std::memory_order_relaxed);  // model: deque.restore.bottom
    }
  }

  [[nodiscard]] bool owner_empty() const noexcept {
    // relaxed: only the owner writes bottom_, and top_ only grows, so "empty" stays true until the next push;
    // "not empty" may be stale (thieves may have taken the rest), and pop() then returns nothing.
    return top_.load(std::memory_order_relaxed) >=
           bottom_.load(std::memory_order_relaxed);  // model: none (hint)
  }

  // ---- thief operations (docs/protocols/deque.md §"Operations") ----

  template <class BeforeClaim>
  steal_result<T> steal(BeforeClaim& before_claim) noexcept {
    std::int64_t t = 0;
    std::int64_t b = 0;
    if constexpr (detail::tsan_build) {
      // seq_cst: pairs with the seq_cst store of bottom_ in pop() (store buffering) and, as an acquire, with
      // the CAS of the thief that moved top_ here. Acquire alone would not do (docs/traps.md "The deque's
      // memory orders").
      t = top_.load(std::memory_order_seq_cst);  // model: deque.steal.top.tsan
      // seq_cst: acquire pairs with the release store of bottom_ in push(); seq_cst with pop()'s store.
      b = bottom_.load(std::memory_order_seq_cst);  // model: deque.steal.bottom.tsan
    } else if (asymmetric_) {
      return steal_asymmetric(before_claim);
    } else {
      // acquire: pairs with the CAS on top_ of the previous successful thief.
      t = top_.load(std::memory_order_acquire);  // model: deque.steal.top
      // seq_cst fence: pairs with the seq_cst fence in pop() (store buffering on bottom_/top_).
      detail::seq_cst_fence();  // model: deque.steal.fence
      // acquire: pairs with the release fence in push().
      b = bottom_.load(std::memory_order_acquire);  // model: deque.steal.bottom
    }
    return claim(t, b, before_claim);
  }

  // The asymmetric mode's steal: the membarrier replaces the seq_cst fence, and only the thief holding the
  // deque's claim token may issue it (docs/protocols/deque.md §"One heavy fence per steal"). The token is
  // for cost only: the deque is correct with any number of thieves past it.
  template <class BeforeClaim>
  steal_result<T> steal_asymmetric(BeforeClaim& before_claim) noexcept {
    // acquire: pairs with the CAS on top_ of the previous successful thief.
    std::int64_t t = top_.load(std::memory_order_acquire);  // model: deque.steal.top.asymmetric
    // acquire: pairs with the release fence in push(). Early exit: idle thieves skip the token and the
    // membarrier.
    if (t >= bottom_.load(std::memory_order_acquire)) {  // model: deque.steal.peek.asymmetric
      return {steal_status::empty, T{}, false};
    }
    // relaxed: a hint, so that thieves finding the token taken only read its line.
    if (claiming_.load(
            std::memory_order_relaxed) ||  // model: none (hint)
                                           // acquire: pairs with the release store that gave the token back,
                                           // so that the reload of top_ below sees the previous holder's CAS
                                           // and no fence is spent on an item already taken.
        claiming_.exchange(true, std::memory_order_acquire)) {  // model: deque.steal.token.take
      return {steal_status::contended, T{}, false};
    }
    // acquire: as the first load of top_; now at least as new as the previous holder's CAS.
    t = top_.load(std::memory_order_acquire);  // model: deque.steal.retop.asymmetric
    // acquire: pairs with the release fence in push(). An item taken while we waited costs no fence.
    if (t >= bottom_.load(std::memory_order_acquire)) {  // model: deque.steal.repeek.asymmetric
      give_back_token();
      return {steal_status::empty, T{}, false};
    }
    // acquire: pairs with the release store in bind_owner_thread(); the slot stays valid while we hold the
    // token (unbind_owner_thread() waits for it).
    const std::uint32_t* const owner_cpu =
        owner_cpu_.load(std::memory_order_acquire);  // model: none (see doc)
    // membarrier, on the owner's core alone when it is bound (null: every core): pairs with the compiler
    // barrier in pop() (docs/protocols/deque.md §"Asymmetric mode").
    detail::process_wide_fence(owner_cpu);  // model: deque.steal.fence.asymmetric
    // acquire: pairs with the release fence in push(); read after the membarrier so pop()'s decrement is
    // seen.
    const std::int64_t b = bottom_.load(std::memory_order_acquire);  // model: deque.steal.bottom.asymmetric
    steal_result<T> result = claim(t, b, before_claim);
    give_back_token();
    result.heavy_fence = true;
    return result;
  }

  void bind_owner_thread() noexcept {
    if (!asymmetric_) return;
    // release: pairs with the acquire load in steal_asymmetric().
    owner_cpu_.store(detail::this_thread_cpu_slot(), std::memory_order_release);  // model: none (see doc)
  }

  void unbind_owner_thread() noexcept {
    if (!asymmetric_) return;
    // relaxed: the token's release below publishes it to the next holder.
    owner_cpu_.store(nullptr, std::memory_order_relaxed);  // model: none (see doc)
    // Take the token once: a thief that held it while reading the old slot has given it back, and the next
    // holder reads null (our release pairs with its acquire). Holders keep it for a bounded time.
    // acquire: pairs with the release store of the previous holder, whose slot read is then finished.
    while (claiming_.exchange(true, std::memory_order_acquire)) {  // model: none (see doc)
      detail::let_others_run();
    }
    give_back_token();
  }

  void give_back_token() noexcept {
    // release: pairs with the acquire exchange of the next thief to take the token.
    claiming_.store(false, std::memory_order_release);  // model: deque.steal.token.give
  }

  // Steps 4-8 of steal (docs/protocols/deque.md): with t and b read as the mode requires, claim item t.
  template <class BeforeClaim>
  steal_result<T> claim(std::int64_t t, std::int64_t b, BeforeClaim& before_claim) noexcept {
    if (t >= b) {
      return {steal_status::empty, T{}, false};
    }
    // acquire: pairs with the release store in use_ring(), so the slots copied into a newer buffer are
    // visible.
    const ring* r = ring_.load(std::memory_order_acquire);  // model: deque.steal.ring
    // relaxed: published by push()'s release. Read before the CAS, because once the CAS succeeds the owner
    // may overwrite this slot with index t + capacity; if the owner already has, top_ is past t and the CAS
    // fails, so an overwritten value is never returned.
    const T value = r->at(t).load(std::memory_order_relaxed);  // model: deque.steal.slot
    if constexpr (std::is_invocable_v<BeforeClaim&, std::int64_t>) {
      if (!before_claim(t)) return {steal_status::declined, T{}, false};
    } else {
      before_claim();
    }
    // seq_cst: the paper's order; pairs with the CAS in pop() and those of other thieves; release so that the
    // owner's acquire load of top_ in push() orders our slot read before its overwrite.
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                      std::memory_order_relaxed)) {  // model: deque.steal.cas
      return {steal_status::lost_race, T{}, false};
    }
    return {steal_status::success, value, false};
  }

  [[nodiscard]] std::int64_t top_hint() const noexcept {
    // acquire: as in steal(); a hint only.
    return top_.load(std::memory_order_acquire);  // model: none (hint)
  }

  [[nodiscard]] std::int64_t bottom_index() const noexcept {
    // relaxed: only the owner writes bottom_.
    return bottom_.load(std::memory_order_relaxed);  // model: none (owner's own value)
  }

  [[nodiscard]] bool thief_empty() const noexcept {
    // acquire: as in steal(); the answer is a hint only.
    const std::int64_t t = top_.load(std::memory_order_acquire);  // model: none (hint)
    return t >= bottom_.load(std::memory_order_acquire);          // model: none (hint)
  }

  // ---- growth (docs/protocols/deque.md §"Growth and buffer retirement") ----

  // The buffer is full: move the items [t, b) to one twice as large, then push. Returns false, with nothing
  // changed, if an allocation fails.
  [[gnu::cold]] FJ_DETAIL_SLOW_PATH bool grow_and_push(T value, std::int64_t t, std::int64_t b) noexcept {
    std::unique_ptr<ring> bigger = make_ring_for_growth();
    if (bigger == nullptr) return false;
    for (std::int64_t i = t; i < b; ++i) {
      // relaxed: the owner is the only writer of slots; thieves read the copies after the release in
      // use_ring().
      const T item = owner_slots_[static_cast<std::size_t>(i & owner_mask_)].load(  // model: deque.grow.load
          std::memory_order_relaxed);
      bigger->at(i).store(item, std::memory_order_relaxed);  // model: deque.grow.store
    }
    rings_.push_back(std::move(bigger));  // cannot throw: reserved above
    use_ring(rings_.back().get());
    owner_limit_ = t + owner_mask_ + 1;
    publish(value, b);
    return true;
  }

  // A buffer twice the current size, with room reserved for it in rings_; null if either allocation fails.
  // Kept apart from grow_and_push so that the exception handling is in a function with the usual calling
  // convention.
  [[gnu::cold, gnu::noinline]] std::unique_ptr<ring> make_ring_for_growth() noexcept {
    try {
      auto bigger = std::make_unique<ring>(2 * (owner_mask_ + 1));
      rings_.reserve(rings_.size() + 1);
      return bigger;
    } catch (...) {  // std::bad_alloc (or length_error from reserve): nothing has changed
      return nullptr;
    }
  }

  void use_ring(ring* r) noexcept {
    owner_slots_ = r->slots.get();
    owner_mask_ = r->mask;
    // release: pairs with the acquire load of ring_ in steal(): a thief that sees r sees its copied slots.
    ring_.store(r, std::memory_order_release);  // model: deque.use_ring
  }

  // Two cache lines apart so that the adjacent-line prefetcher does not pair top_ with the owner's data.
  static constexpr std::size_t separation = 128;

  // Written by thieves (CAS) and by pop() on the last item; index of the oldest item.
  alignas(separation) std::atomic<std::int64_t> top_{0};
  // Asymmetric mode: true while a thief is between taking the token and its CAS (steal_asymmetric). On a
  // line of its own: thieves write it, the owner never reads it.
  alignas(separation) std::atomic<bool> claiming_{false};
  // Where the owner's thread keeps its current CPU number (bind_thread()), or null: then a steal's fence
  // interrupts every core. Read by token holders only.
  std::atomic<const std::uint32_t*> owner_cpu_{nullptr};
  // Owner's line: bottom_ (one past the newest item, written only by the owner) and the current buffer.
  alignas(separation) std::atomic<std::int64_t> bottom_{0};
  std::atomic<ring*> ring_{nullptr};
  std::atomic<T>* owner_slots_ = nullptr;  // owner-only copies of the current ring's fields
  std::int64_t owner_mask_ = 0;
  // push may move bottom_ up to here without reading top_: a value of top_ that push read (acquire) plus the
  // capacity then. top_ only grows, so the limit is never too high (docs/protocols/deque.md, push).
  std::int64_t owner_limit_ = 0;
  const bool asymmetric_;
  // Every buffer ever used, current last; freed by the destructor, when no thief can be reading any of them.
  std::vector<std::unique_ptr<ring>> rings_;
};

}  // namespace fj
