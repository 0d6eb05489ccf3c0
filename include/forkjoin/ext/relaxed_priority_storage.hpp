#pragma once
// The k-relaxed priority storage: a shared array of items, filled from a global tail, plus private references
// into it per worker: the worker's own items in a bucket per priority and the other workers' items in sorted
// runs. A pop
// returns the most urgent item its worker can see (its own first among equal priorities), and a worker misses
// at most K items pushed by others (the newest ones, not yet below the tail). Every item is taken exactly
// once. The protocol, every atomic with its partner, and the proofs are in docs/protocols/priority.md; the
// contract is ext/priority_storage.hpp's (lower priority value = more urgent).
//
// After the CentralKStrategy task storage of M. Wimmer's Pheet framework (Wimmer, Versaci, Träff, Cederman,
// Tsigas, "Data structures for task-based priority scheduling", PPoPP 2014), with acquire/release orders
// throughout and these deviations:
//  - the value lives in the item and is read only by the one worker whose CAS takes it; a taken item goes
//    back to its owner through a lock-free return list (release/acquire), which makes reuse safe without the
//    owner polling items for "taken";
//  - an attempt's position is stored in the item only for an empty slot, so that a reused item never takes
//    a position of one of its earlier lives (priority.md §4);
//  - the blocks of the shared array are deleted by the last worker that leaves them (a reference count with
//    an acq_rel decrement, so that every worker's reads of the block happen before the delete), not
//    recycled;
//  - the priority is a double compared with <; NaN is rejected;
//  - a worker keeps the other workers' items in sorted runs (an entry there is appended and popped, never
//    sifted), and prefers its own items among equal priorities: an item then costs work mostly in its owner,
//    and the entry in a worker that did not take it is dropped from a run (priority.md §3);
//  - a worker keeps its own items in a FIFO per distinct priority and a heap of those, not in a heap of
//    every entry: searches tie on few priorities, and a pop then reads in order instead of sifting (§3).

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/ext/priority_storage.hpp"

namespace fj {

namespace detail {
// Slots per block of the shared array: a power of two, at least K so that one push touches at most two
// blocks, and at least 64 so that a block's reference count is touched rarely.
constexpr std::size_t relaxed_block_size(std::size_t k) noexcept {
  return std::bit_ceil(k < 64 ? std::size_t{64} : k);
}
}  // namespace detail

// K: how many items pushed by other workers a pop may miss; at least 1 (K = 0 is the strict storage,
// fj::strict_priority_storage). BlockSize: slots per block of the shared array (a power of two).
template <priority_value T, std::size_t K, std::size_t BlockSize = detail::relaxed_block_size(K)>
class relaxed_priority_storage {
  static_assert(K > 0,
                "fj::relaxed_priority_storage: k must be at least 1; for k = 0 (no relaxation) use "
                "fj::strict_priority_storage");
  static_assert(BlockSize > 0 && (BlockSize & (BlockSize - 1)) == 0,
                "fj::relaxed_priority_storage: the block size must be a power of two");

 public:
  using value_type = T;
  static constexpr std::size_t relaxation = K;

  // workers: how many worker indices push and pop accept. Throws fj::invalid_config_error for 0.
  explicit relaxed_priority_storage(std::size_t workers) : workers_count_(workers) {
    if (workers == 0) {
      throw invalid_config_error("a priority storage needs at least one worker");
    }
    if (workers > std::numeric_limits<std::uint32_t>::max()) {
      throw invalid_config_error("the relaxed priority storage takes at most 2^32 - 1 workers");
    }
    workers_ = std::make_unique<worker_state[]>(workers);
    block* first = new block(0, workers);
    for (std::size_t w = 0; w < workers; ++w) {
      workers_[w].current = first;
      workers_[w].push_hint = first;
      // Room for the distinct priorities a search usually has open, so that the bucket bookkeeping rarely
      // grows while the workers run: each growth is a large allocation, and glibc's malloc then
      // consolidates every freed task in its fast bins.
      workers_[w].buckets.reserve(k_buckets_reserved);
      workers_[w].free_buckets.reserve(k_buckets_reserved);
      workers_[w].order.reserve(k_buckets_reserved);
      workers_[w].table.assign(2 * k_buckets_reserved, k_no_bucket);
    }
    // relaxed: a statistic.
    blocks_live_.store(1, std::memory_order_relaxed);  // model: none (statistic)
  }

  relaxed_priority_storage(const relaxed_priority_storage&) = delete;
  relaxed_priority_storage& operator=(const relaxed_priority_storage&) = delete;
  relaxed_priority_storage(relaxed_priority_storage&&) = delete;
  relaxed_priority_storage& operator=(relaxed_priority_storage&&) = delete;

  // No thread may use the storage any more (their last calls happen before this). Values still stored are
  // dropped; the storage never owns what they point to.
  ~relaxed_priority_storage() {
    // Blocks below the oldest worker's current block were deleted by the last worker that left them
    // (leave_block); the rest are still linked from there.
    block* b = workers_[0].current;
    for (std::size_t w = 1; w < workers_count_; ++w) {
      if (workers_[w].current->base < b->base) {
        b = workers_[w].current;
      }
    }
    for (std::size_t w = 0; w < workers_count_; ++w) {
      for (segment* s = workers_[w].segments; s != nullptr;) {
        segment* next = s->allocated;
        delete s;
        s = next;
      }
    }
    while (b != nullptr) {
      // relaxed: every other thread is done with the storage.
      block* next = b->next.load(std::memory_order_relaxed);  // model: none (destructor, single-threaded)
      delete b;
      b = next;
    }
  }

  // Worker `worker` adds `value` with `priority` (lower = more urgent). Throws fj::priority_error for a NaN
  // priority or a bad worker index, std::bad_alloc when a block or an item cannot be allocated; in every case
  // nothing is stored. Only the thread acting as `worker` may call push(worker, ...) and pop(worker).
  void push(std::size_t worker, const T& value, double priority) {
    detail::check_worker(worker, workers_count_);
    detail::check_priority(priority);
    worker_state& me = workers_[worker];
    // Everything that may allocate comes before the item is published, so that nothing throws after it.
    const std::uint32_t index = bucket_for(me, priority);
    make_room(me, me.buckets[index]);
    item* it = acquire_item(me, worker);
    it->value = value;
    // relaxed: published by the release CAS on the slot in place(). A worker still holding a reference to an
    // older life of this item may read it meanwhile; its position test then fails (priority.md §4).
    it->priority.store(priority, std::memory_order_relaxed);  // model: prio.item.priority
    std::uint64_t position = 0;
    try {
      position = place(me, it);
    } catch (...) {
      it->next = me.free;
      me.free = it;
      throw;
    }
    // Our positions only grow (priority.md §4), so appending keeps the bucket in position order.
    segment* last = me.buckets[index].last;
    last->entries[last->end] = own_entry{position, it};
    ++last->end;
    bump(me.pushed);
  }

  // The most urgent item `worker` sees (among equal priorities its own first, then the one placed first), or
  // nothing. It sees every item not yet taken except at most K pushed by other workers. May throw
  // std::bad_alloc while it records newly visible items in its runs; nothing is lost then (the next pop goes
  // on from there).
  [[nodiscard]] std::optional<T> pop(std::size_t worker) {
    detail::check_worker(worker, workers_count_);
    worker_state& me = workers_[worker];
    refresh(me, worker);
    for (;;) {
      // The least entry of our buckets (our own items) or of the runs (the others'), our own on a tie of
      // priorities: across workers ties are not ordered (the contract), and preferring our own leaves the
      // others' items to their owners, which mostly take them.
      std::vector<entry>* run = least_run(me);
      entry e{};
      if (run != nullptr && (me.order.empty() || run->back().priority < me.order.front().priority)) {
        e = run->back();
        run->pop_back();
        if (run->empty()) {
          me.runs.erase(me.runs.begin() + (run - me.runs.data()));
        } else if (run->size() > k_lookahead) {
          // The run's next entries are usually dropped or taken next, and their items were written by another
          // core: start loading them now, so that a stretch of drops overlaps its loads.
          prefetch_item((*run)[run->size() - 1 - k_lookahead].it);
        }
      } else if (!me.order.empty()) {
        bucket& b = me.buckets[me.order.front().index];
        segment* first = b.first;
        if (first->begin == first->end) {
          // Only a push that threw after it made a bucket or room in one leaves an empty segment, and only as
          // the bucket's last one.
          pass_front_segment(me, b);
          continue;
        }
        const own_entry own = first->entries[first->begin];
        ++first->begin;
        e = entry{b.priority, own.position, own.it};
        if (first->begin == first->end) {
          pass_front_segment(me, b);
        } else if (first->end - first->begin > k_lookahead) {
          // The bucket's next entries are taken (or dropped) next, and their items were pushed long ago:
          // start loading them now, as for the runs.
          prefetch_item(first->entries[first->begin + k_lookahead].it);
        }
      } else {
        return std::nullopt;
      }
      // relaxed: a stale entry (its life is over: taken, maybe reused) is dropped on a load, without the
      // CAS's exclusive access to a line that another worker may own. We read this life's position before (in
      // refresh, or we stored it), so by coherence a different value means the life is over (positions are
      // fresh, priority.md §4) and the CAS below would fail.
      if (e.it->position.load(std::memory_order_relaxed) != e.position) {  // model: prio.take.peek
        continue;
      }
      std::uint64_t expected = e.position;
      // relaxed: only atomicity matters (one CAS per life of an item succeeds). The value was made visible by
      // the slot's release/acquire (or is our own); it goes back to its owner by the release in give_back().
      // Strong: a spurious failure would drop the entry, and an item only its owner sees would be lost.
      if (e.it->position.compare_exchange_strong(expected, k_taken, std::memory_order_relaxed,
                                                 std::memory_order_relaxed)) {  // model: prio.take
        const T value = e.it->value;
        give_back(me, worker, e.it);
        bump(me.taken);
        // The next pop's CAS goes to the item now first in the top bucket, most often pushed long ago:
        // start loading its line while the caller runs what we return.
        if (!me.order.empty()) {
          const segment* first = me.buckets[me.order.front().index].first;
          if (first->begin < first->end) {
            prefetch_item(first->entries[first->begin].it);
          }
        }
        return value;
      }
    }
  }

  // Worker `worker` moves its view of the shared array up to the tail without recording the items other
  // workers placed below it, and leaves the blocks it passes. For an index that pops only to take back its
  // own items (fj::priority_group's outside index, priority.md §10): without this its head would stay where
  // it last popped and pin every block from there on (§6). Its own items stay in its buckets; the skipped
  // ones stay in their pushers' buckets (and every other worker's runs), so each is still taken (§4), but
  // this index's pops may miss them (the bound of §5 holds for what it has not skipped).
  void skip(std::size_t worker) {
    detail::check_worker(worker, workers_count_);
    worker_state& me = workers_[worker];
    // acquire: pairs with the release CAS on the tail in place(), as in refresh(): the blocks holding the
    // positions below the value read are linked, and leave_block()'s load of `next` finds them.
    const std::uint64_t t = tail_.load(std::memory_order_acquire);  // model: prio.skip.tail
    while (me.head < t) {
      if (me.head == me.current->base + BlockSize) {
        leave_block(me);
      }
      me.head = std::min(t, me.current->base + BlockSize);
    }
  }

  // True when every item pushed so far seems taken; may be stale by the time it returns.
  [[nodiscard]] bool empty_hint() const noexcept {
    std::uint64_t taken = 0;
    std::uint64_t pushed = 0;
    for (std::size_t w = 0; w < workers_count_; ++w) {
      // relaxed: a hint; nothing is read through it.
      taken += workers_[w].taken.load(std::memory_order_relaxed);  // model: none (hint)
    }
    for (std::size_t w = 0; w < workers_count_; ++w) {
      // relaxed: as above.
      pushed += workers_[w].pushed.load(std::memory_order_relaxed);  // model: none (hint)
    }
    return pushed <= taken;
  }

  [[nodiscard]] std::size_t workers() const noexcept { return workers_count_; }

  // Blocks of the shared array allocated and not yet deleted (a statistic, for tests of the reclamation).
  [[nodiscard]] std::size_t blocks_live() const noexcept {
    // relaxed: a statistic.
    return blocks_live_.load(std::memory_order_relaxed);  // model: none (statistic)
  }

  // Distinct priorities among the values `worker` pushed that its own pops have not yet passed: one bucket
  // each (a statistic, for tests). Only the thread acting as `worker` may call it.
  [[nodiscard]] std::size_t own_priorities(std::size_t worker) const {
    detail::check_worker(worker, workers_count_);
    return workers_[worker].order.size();
  }

  static constexpr std::size_t block_size = BlockSize;

 private:
  static constexpr std::uint64_t k_taken = ~std::uint64_t{0};
  static constexpr std::uint64_t k_mask = BlockSize - 1;
  static constexpr std::size_t k_chunk = 64;     // items allocated at once
  static constexpr std::size_t k_lookahead = 4;  // run or bucket entries ahead whose items a pop prefetches
  // Entries per segment of a bucket: a segment stays below 1 KiB, which glibc's malloc serves from its small
  // bins without first consolidating the fast bins that freed tasks fill.
  static constexpr std::uint32_t k_segment_entries = 60;
  static constexpr std::size_t k_buckets_reserved = 2048;

  // One pushed value. Items are never freed before the storage: a stale reference in some worker's bucket or
  // runs can always read `position` (type-stable memory). Each life of an item has a distinct position
  // (positions only grow), so a reference to an older life fails its test and its CAS.
  // A take reads position, owner and value, so the item is kept small: `owner` takes 32 bits, and `next`
  // shares the value's bytes (an item is on a free or return list only while it holds no life; priority.md
  // §4).
  struct item {
    std::atomic<std::uint64_t> position{k_taken};  // the slot of the current life, or k_taken
    std::atomic<double> priority{0.0};
    std::uint32_t owner = 0;  // constant: the worker whose pool holds the item
    union {
      item* next = nullptr;  // free list and return list link, while the item is free
      T value;               // written by the owner before publication, read by the one taker
    };
  };

  struct block {
    block(std::uint64_t first_position, std::size_t workers) : base(first_position), registered(workers) {}
    const std::uint64_t base;  // position of slots[0]
    std::atomic<block*> next{nullptr};
    std::atomic<std::size_t> registered;  // workers whose head has not yet left this block
    std::atomic<item*> slots[BlockSize] = {};
  };

  struct entry {
    double priority;
    std::uint64_t position;
    item* it;
  };
  // A worker's own entries are kept by priority: a bucket per distinct priority, a FIFO in push order, and a
  // binary heap of the buckets. Searches give many items one priority (integer bounds), so heap work is paid
  // per distinct priority, and a pop reads the top bucket sequentially instead of sifting a heap of every
  // open item, whose lower levels miss the cache on every pop.
  struct own_entry {
    std::uint64_t position;
    item* it;
  };
  // A bucket's entries in push order (which is position order), in fixed segments linked oldest to newest,
  // so that a bucket grows and shrinks without reallocating; a worker reuses its segments.
  struct segment {
    std::uint32_t begin = 0;  // entries below it were popped
    std::uint32_t end = 0;    // entries from it on are not yet used
    segment* next = nullptr;
    segment* allocated = nullptr;  // every segment of the worker, for the destructor
    own_entry entries[k_segment_entries];
  };
  struct bucket {
    double priority = 0.0;
    segment* first = nullptr;  // in use: never null, and empty only when the bucket is
    segment* last = nullptr;
  };
  struct bucket_ref {
    double priority;
    std::uint32_t index;  // into worker_state::buckets
  };
  // std::push_heap keeps the "largest" first: the more urgent bucket is the larger one. Priorities of the
  // buckets in the heap differ, so there is no tie.
  struct less_urgent {
    bool operator()(const bucket_ref& a, const bucket_ref& b) const noexcept {
      return a.priority > b.priority;
    }
  };
  static constexpr std::uint32_t k_no_bucket = ~std::uint32_t{0};
  // std::push_heap keeps the "largest" first: the later entry is the smaller one.
  struct later {
    bool operator()(const entry& a, const entry& b) const noexcept {
      return a.priority != b.priority ? a.priority > b.priority : a.position > b.position;
    }
  };

  struct alignas(128) worker_state {
    // Takers of this worker's items push them here (any thread).
    std::atomic<item*> returned{nullptr};
    // Written by this worker only, read by empty_hint().
    alignas(128) std::atomic<std::uint64_t> pushed{0};
    std::atomic<std::uint64_t> taken{0};
    // This worker only.
    std::uint64_t head = 0;            // positions below it are in buckets or runs (or taken, skipped)
    block* current = nullptr;          // the block holding `head`; registered until head leaves it
    block* push_hint = nullptr;        // the block where the last push landed (valid while not below current)
    std::uint64_t push_hint_base = 0;  // its base, read without touching the block
    std::uint64_t next_try = 0;        // every slot from the tail up to here was seen filled by this worker
    // Our own items: buckets (reused once empty: `free_buckets`), the heap of the buckets in use, and an
    // open-addressing table from a priority to its bucket (linear probing, at most half full).
    std::vector<bucket> buckets;
    std::vector<std::uint32_t> free_buckets;  // capacity kept at buckets.size(): a pop never allocates
    std::vector<bucket_ref> order;
    std::vector<std::uint32_t> table;
    std::size_t table_used = 0;
    segment* free_segments = nullptr;
    segment* segments = nullptr;  // linked by `allocated`
    // The other workers' items: sorted runs, each with its most urgent entry last, oldest (and largest) run
    // first; refresh() sorts what it records into a new run and merges runs of similar sizes.
    std::vector<std::vector<entry>> runs;
    std::vector<entry> recorded;  // entries refresh() recorded and has not yet made into a run
    std::vector<entry> spare;     // a merge's output buffer, kept for the next merge
    item* free = nullptr;         // items ready for reuse
    std::vector<std::unique_ptr<item[]>> chunks;
  };

  // Room for one more element, growing geometrically (reserve(size() + 1) would reallocate on every call).
  template <class V>
  static void reserve_one_more(V& v) {
    if (v.size() == v.capacity()) {
      v.reserve(2 * v.size() + 16);
    }
  }

  static std::uint64_t priority_bits(double priority) noexcept {
    return std::bit_cast<std::uint64_t>(priority + 0.0);  // + 0.0: -0.0 and 0.0 are one priority
  }
  static std::size_t home_slot(double priority, std::size_t mask) noexcept {
    // Integral priorities have their low bits all zero: fold the high half in before multiplying, and take
    // the product's high half, which depends on every bit.
    const std::uint64_t bits = priority_bits(priority);
    return static_cast<std::size_t>(((bits ^ (bits >> 32)) * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
  }

  // The bucket of `priority` in `me`, made (in use, empty) if there is none. May throw std::bad_alloc, with
  // nothing changed but capacities.
  std::uint32_t bucket_for(worker_state& me, double priority) {
    if (2 * (me.table_used + 1) > me.table.size()) {
      grow_table(me);
    }
    const std::size_t mask = me.table.size() - 1;
    std::size_t slot = home_slot(priority, mask);
    while (me.table[slot] != k_no_bucket) {
      if (me.buckets[me.table[slot]].priority == priority) {
        return me.table[slot];
      }
      slot = (slot + 1) & mask;
    }
    reserve_one_more(me.order);
    std::uint32_t index = 0;
    if (me.free_buckets.empty()) {
      reserve_one_more(me.buckets);
      me.free_buckets.reserve(me.buckets.capacity());
      me.buckets.emplace_back();
      index = static_cast<std::uint32_t>(me.buckets.size() - 1);
    } else {
      index = me.free_buckets.back();
      me.free_buckets.pop_back();
    }
    bucket& b = me.buckets[index];
    if (b.first == nullptr) {
      b.first = take_segment(me);  // a reused bucket keeps its one emptied segment
      b.last = b.first;
    }
    b.priority = priority;
    me.table[slot] = index;
    ++me.table_used;
    me.order.push_back(bucket_ref{priority, index});
    std::push_heap(me.order.begin(), me.order.end(), less_urgent{});
    return index;
  }

  static void grow_table(worker_state& me) {
    std::vector<std::uint32_t> grown(me.table.empty() ? 64 : 2 * me.table.size(), k_no_bucket);
    const std::size_t mask = grown.size() - 1;
    for (const std::uint32_t index : me.table) {
      if (index != k_no_bucket) {
        std::size_t slot = home_slot(me.buckets[index].priority, mask);
        while (grown[slot] != k_no_bucket) {
          slot = (slot + 1) & mask;
        }
        grown[slot] = index;
      }
    }
    me.table.swap(grown);
  }

  // Room for one more entry at the end of `b`: a new last segment when the last one is full.
  static void make_room(worker_state& me, bucket& b) {
    if (b.last->end == k_segment_entries) {
      segment* fresh = take_segment(me);
      b.last->next = fresh;
      b.last = fresh;
    }
  }

  static segment* take_segment(worker_state& me) {
    segment* s = me.free_segments;
    if (s == nullptr) {
      s = new segment;
      s->allocated = me.segments;
      me.segments = s;
    } else {
      me.free_segments = s->next;
    }
    s->begin = 0;
    s->end = 0;
    s->next = nullptr;
    return s;
  }

  static void give_segment(worker_state& me, segment* s) noexcept {
    s->next = me.free_segments;
    me.free_segments = s;
  }

  // The front segment of `b`, the top bucket of `me`, has no entries left: the bucket goes if that was its
  // last segment (it is empty), else its next segment becomes the front and this one is reused.
  static void pass_front_segment(worker_state& me, bucket& b) noexcept {
    segment* first = b.first;
    if (first == b.last) {
      drop_top_bucket(me);
    } else {
      b.first = first->next;
      give_segment(me, first);
    }
  }

  // Removes the top bucket of `me` (empty, or emptied by the pop) from the heap and the table; it is reused.
  static void drop_top_bucket(worker_state& me) noexcept {
    const std::uint32_t index = me.order.front().index;
    bucket& b = me.buckets[index];
    std::pop_heap(me.order.begin(), me.order.end(), less_urgent{});
    me.order.pop_back();
    // Backward-shift deletion: move later entries of the probe sequence into the hole so every lookup still
    // finds its bucket before an empty slot.
    const std::size_t mask = me.table.size() - 1;
    std::size_t hole = home_slot(b.priority, mask);
    while (me.table[hole] != index) {
      hole = (hole + 1) & mask;
    }
    for (std::size_t next = (hole + 1) & mask; me.table[next] != k_no_bucket; next = (next + 1) & mask) {
      const std::size_t home = home_slot(me.buckets[me.table[next]].priority, mask);
      // The entry at `next` may move to the hole if its home is not in the cyclic range (hole, next].
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        me.table[hole] = me.table[next];
        hole = next;
      }
    }
    me.table[hole] = k_no_bucket;
    --me.table_used;
    // The bucket keeps its first segment, emptied, for its next use; a bucket in use has at most one empty
    // segment (its last), so there is at most one more.
    if (b.first != b.last) {
      give_segment(me, b.last);
    }
    b.first->begin = 0;
    b.first->end = 0;
    b.first->next = nullptr;
    b.last = b.first;
    me.free_buckets.push_back(index);  // within the capacity reserved in bucket_for()
  }

  // Starts loading an item, both of its lines when it is larger than one (a value carrying a call): a take
  // reads the value after the position.
  static void prefetch_item(const item* it) noexcept {
    __builtin_prefetch(it);
    if constexpr (sizeof(item) > 64) {
      __builtin_prefetch(reinterpret_cast<const char*>(it) + sizeof(item) - 1);
    }
  }

  static void bump(std::atomic<std::uint64_t>& counter) noexcept {
    // relaxed: a single-writer counter read only by empty_hint(), a hint.
    counter.store(counter.load(std::memory_order_relaxed) + 1,
                  std::memory_order_relaxed);  // model: none (hint)
  }

  // A free item of `me`'s pool: one taken and given back, or a new one.
  item* acquire_item(worker_state& me, std::size_t worker) {
    if (me.free == nullptr) {
      // acquire: pairs with the release CAS in give_back(): each taker's read of an item's value happens
      // before our reuse of it.
      me.free = me.returned.exchange(nullptr, std::memory_order_acquire);  // model: prio.reuse
    }
    if (me.free == nullptr) {
      reserve_one_more(me.chunks);
      auto chunk = std::make_unique<item[]>(k_chunk);
      for (std::size_t i = 0; i < k_chunk; ++i) {
        chunk[i].owner = static_cast<std::uint32_t>(worker);
        chunk[i].next = i + 1 < k_chunk ? &chunk[i + 1] : nullptr;
      }
      me.free = chunk.get();
      me.chunks.push_back(std::move(chunk));
    }
    item* it = me.free;
    me.free = it->next;
    return it;
  }

  // Hands a taken item back to its owner's pool.
  void give_back(worker_state& me, std::size_t worker, item* it) noexcept {
    if (it->owner == worker) {
      it->next = me.free;
      me.free = it;
      return;
    }
    std::atomic<item*>& list = workers_[it->owner].returned;
    // relaxed: only the expected value of the CAS below; nothing is read through it.
    item* first = list.load(std::memory_order_relaxed);  // model: prio.return.load
    do {
      it->next = first;
      // release: pairs with the acquire exchange in acquire_item(): our read of the value and the link happen
      // before the owner reuses the item. relaxed on failure: we retry with the newer first item.
      // LIFETIME: after this the owner may overwrite the item.
    } while (!list.compare_exchange_weak(first, it, std::memory_order_release,
                                         std::memory_order_relaxed));  // model: prio.return.cas
  }

  // The block holding `position`, walking forward from `from` (a block the caller is registered on, or one
  // after it); appends blocks that do not exist yet.
  block* block_for(block* from, std::uint64_t position) {
    block* b = from;
    while (position >= b->base + BlockSize) {
      // acquire: pairs with the release CAS in append(): the next block's initialisation is visible.
      block* n = b->next.load(std::memory_order_acquire);  // model: prio.next.load
      if (n == nullptr) {
        append(b);  // ours or another worker's: the load above reads it next time round
        continue;
      }
      b = n;
    }
    return b;
  }

  void append(block* b) {
    auto* fresh = new block(b->base + BlockSize, workers_count_);
    block* expected = nullptr;
    // release on success: publishes the new block's initialisation (pairs with the acquire loads of `next`).
    // relaxed on failure: another worker appended first; block_for() reloads `next` with acquire.
    if (b->next.compare_exchange_strong(expected, fresh, std::memory_order_release,
                                        std::memory_order_relaxed)) {  // model: prio.next.cas
      // relaxed: a statistic.
      blocks_live_.fetch_add(1, std::memory_order_relaxed);  // model: none (statistic)
      return;
    }
    delete fresh;
  }

  // Publishes `it` in a free slot at or above the tail, moving the tail on when the K slots above it are all
  // filled; returns the slot's position.
  std::uint64_t place(worker_state& me, item* it) {
    // relaxed: only where to start trying; the strong CASes on the slots decide. Not below our head: the
    // acquire load in refresh() read an older value of the same tail (coherence).
    std::uint64_t t = tail_.load(std::memory_order_relaxed);  // model: prio.push.tail
    for (;;) {
      // The hint is compared by its base first: once our head has left it, the block may be gone.
      block* b = me.push_hint_base >= me.current->base && me.push_hint_base <= t ? me.push_hint : me.current;
      // Slots in [t, next_try) were seen filled by our earlier pushes (slots stay filled): start after them,
      // so that a run of pushes into one window of K slots looks at each slot once, not K/2 times on average.
      // The tail CAS below still comes after our reads of every slot in [t, t + K) (priority.md §4).
      for (std::uint64_t i = std::max(t, me.next_try); i < t + K; ++i) {
        b = block_for(b, i);
        // relaxed: a filled slot is skipped without touching the item. This is what keeps positions fresh: an
        // earlier life of this item may sit in a slot at or above t, and storing that slot's position in the
        // item, even only for an attempt, would revive every reference to that life (priority.md §4). An
        // empty slot was never filled, so its position belongs to no life of any item (we would see our own
        // fill: coherence).
        if (b->slots[i & k_mask].load(std::memory_order_relaxed) != nullptr) {  // model: prio.slot.peek
          continue;
        }
        // relaxed: published with the item by the release CAS below.
        it->position.store(i, std::memory_order_relaxed);  // model: prio.item.position
        item* empty = nullptr;
        // release: pairs with the acquire load of the slot in refresh(): the item's value, priority and
        // position are visible to whoever reads it there. Strong: tail moves past slots whose CAS failed,
        // which must therefore be filled. relaxed on failure: the slot is someone else's.
        if (b->slots[i & k_mask].compare_exchange_strong(
                empty, it, std::memory_order_release,
                std::memory_order_relaxed)) {  // model: prio.slot.cas
          me.push_hint = b;
          me.push_hint_base = b->base;
          me.next_try = i + 1;
          return i;
        }
      }
      // The K slots from t are all filled: move the tail past them, or learn that someone did.
      // release: pairs with the acquire load of the tail in refresh(): our failed CASes, which read every
      // slot in [t, t + K) filled, happen before that worker's loads of those slots, which then see the items
      // (coherence). Weak: a spurious failure retries the same t. relaxed on failure: t becomes the newer
      // tail, only where to try next.
      if (tail_.compare_exchange_weak(t, t + K, std::memory_order_release,
                                      std::memory_order_relaxed)) {  // model: prio.tail.cas
        t += K;
      }
    }
  }

  // Records in `me`'s runs every item of another worker placed below the tail that `me` has not looked at yet
  // (its own items are in its buckets since their push).
  void refresh(worker_state& me, std::size_t worker) {
    // acquire: pairs with the release CAS on the tail in place(): every slot below the value read is filled
    // and our loads of them see the items.
    const std::uint64_t t = tail_.load(std::memory_order_acquire);  // model: prio.scan.tail
    while (me.head < t) {
      if (me.head == me.current->base + BlockSize) {
        leave_block(me);
      }
      // acquire: pairs with the release CAS in place(): the item's fields written before it are visible.
      item* it =
          me.current->slots[me.head & k_mask].load(std::memory_order_acquire);  // model: prio.scan.slot
      if (it == nullptr) [[unlikely]] {
        detail::internal_error("relaxed_priority_storage: an empty slot below the tail");
      }
      if (it->owner != worker) {
        // relaxed: the slot's acquire made this life's position visible; another value means the item was
        // taken since (and maybe reused), so there is nothing to record.
        if (it->position.load(std::memory_order_relaxed) == me.head) {  // model: prio.scan.position
          // relaxed: as the position. If the item is taken meanwhile, the entry's CAS fails whatever it says.
          const double priority = it->priority.load(std::memory_order_relaxed);  // model: prio.scan.priority
          me.recorded.push_back(entry{priority, me.head, it});
        }
      }
      ++me.head;
    }
    if (!me.recorded.empty()) {
      add_run(me);
    }
  }

  // Makes `me.recorded` a sorted run and merges the newest runs while the older is at most twice the newer's
  // size, so that a worker holds about log2(entries) runs and an entry is moved about that many times. Each
  // step allocates before it changes anything: after a std::bad_alloc every entry is still in a run or in
  // `recorded` (which the next refresh makes a run).
  void add_run(worker_state& me) {
    me.runs.emplace_back();
    me.runs.back().swap(me.recorded);
    std::sort(me.runs.back().begin(), me.runs.back().end(), later{});
    while (me.runs.size() >= 2 && me.runs[me.runs.size() - 2].size() <= 2 * me.runs.back().size()) {
      std::vector<entry>& older = me.runs[me.runs.size() - 2];
      std::vector<entry>& newer = me.runs.back();
      me.spare.clear();
      me.spare.reserve(older.size() + newer.size());
      std::merge(older.begin(), older.end(), newer.begin(), newer.end(), std::back_inserter(me.spare),
                 later{});
      older.swap(me.spare);
      // The merged-away run's buffer serves the next refresh's records (`recorded` is empty here: it got the
      // new run's empty vector), so that a refresh does not allocate every time.
      newer.clear();
      me.recorded.swap(newer);
      me.runs.pop_back();
    }
  }

  // The run whose last (most urgent) entry is the least of all runs' (positions differ, so there is no tie),
  // or null when there is none.
  static std::vector<entry>* least_run(worker_state& me) noexcept {
    std::vector<entry>* best = nullptr;
    for (std::vector<entry>& r : me.runs) {
      if (best == nullptr || later{}(best->back(), r.back())) {
        best = &r;
      }
    }
    return best;
  }

  // `me`'s head has reached the end of its current block: move to the next one and leave the old one.
  void leave_block(worker_state& me) {
    block* old = me.current;
    // acquire: pairs with the release CAS in append(). The block exists: a slot of it below the tail was
    // filled, by a push that reached it through this pointer, and that push happens before our load of the
    // tail (see refresh()).
    block* n = old->next.load(std::memory_order_acquire);  // model: prio.scan.next
    if (n == nullptr) [[unlikely]] {
      detail::internal_error("relaxed_priority_storage: no next block below the tail");
    }
    me.current = n;
    // acq_rel: the release orders our accesses to the block before its deletion; the acquire, in the last
    // worker to leave, orders every other worker's accesses before it deletes the block.
    // LIFETIME: after this the block may be deleted by another worker; we never touch it again.
    if (old->registered.fetch_sub(1, std::memory_order_acq_rel) == 1) {  // model: prio.block.leave
      delete old;
      // relaxed: a statistic.
      blocks_live_.fetch_sub(1, std::memory_order_relaxed);  // model: none (statistic)
    }
  }

  std::size_t workers_count_;
  std::unique_ptr<worker_state[]> workers_;
  // Padding, not alignas: the storage may live in a coroutine frame (a priority_group local to a task),
  // which is not allocated with more than the default alignment.
  [[maybe_unused]] std::byte pad_before_tail_[128]{};
  std::atomic<std::uint64_t> tail_{0};
  [[maybe_unused]] std::byte pad_before_blocks_[128]{};
  std::atomic<std::size_t> blocks_live_{0};
};

}  // namespace fj
