#pragma once
// inclusive_scan and exclusive_scan. What runs on the caller (all of an input below the serial cutoff or
// within the grain, the timed prefix, and a remainder of a single chunk) is scanned in one pass, as
// std::inclusive_scan does. The rest goes to the pool as a chained scan (scan_ctx below): chunks that fit in
// a core's cache, each folded, given its carry by its predecessor, and scanned from the cache, so that every
// element is read from memory once and written once, in parallel. The chunks depend only on the range's
// length, the element size and the partition, never on the worker count.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "forkjoin/detail/algorithm/loop.hpp"
#include "forkjoin/detail/algorithm/partition.hpp"
#include "forkjoin/detail/chaos.hpp"

namespace fj::detail::algo {

// A chunk's input by default: small enough that a chunk folded from memory is still in the core's cache (L2)
// when it is scanned, with its output; large enough that handing out a chunk (an atomic increment, one
// release store, one acquire load) costs little next to it.
inline constexpr std::size_t scan_chunk_bytes = std::size_t{128} * 1024;

// How long a participant waits for the carry into its chunk before it leaves the chunk to whoever brings the
// carry: many chunks' time, so that a participant merely behind by a chunk is waited for (leaving makes the
// other re-read the chunk from memory), but a preempted one does not hold the others up for long. The wait
// spins (pause) at first, then yields the CPU, which a preempted participant on an oversubscribed machine
// may need.
inline constexpr std::uint64_t scan_wait_ns = 200'000;
inline constexpr std::uint64_t scan_spin_ns = 20'000;
// The wait in use: scan_wait_ns, except in tests, which set 0 so that participants leave their chunks (the
// path a preempted participant takes) as often as possible.
inline std::atomic<std::uint64_t> scan_wait_limit_ns{scan_wait_ns};

// fj::grain(n) scans use chunks of n elements, but no more than this many chunks (each holds two
// accumulators and a byte): a small grain on a huge range must not allocate more than the range.
inline constexpr std::size_t scan_max_grain_chunks = std::size_t{1} << 16;

// The default chunk length for accumulators of type T.
template <class T>
[[nodiscard]] constexpr std::size_t scan_chunk_length() {
  return std::max<std::size_t>(1024, scan_chunk_bytes / sizeof(T));
}

// The loops below count elements instead of comparing iterators: clang then unrolls them, as it does
// std::inclusive_scan over a span (an `it != end` loop was not unrolled and took 2.2 times the instructions
// of the serial std:: call at 10^3 elements; docs/performance.md "Parallel algorithms").

// acc op x for each of the `count` elements at `it`, each partial result to `out`; returns the total.
template <class It, class Out, class T, class Op>
T inclusive_run(It it, Out out, std::size_t count, T acc, Op& op) {
  for (std::size_t i = 0; i < count; ++i, ++it, ++out) {
    acc = std::invoke(op, std::move(acc), *it);
    *out = acc;
  }
  return acc;
}

// The same, but each output gets the total before its element.
template <class It, class Out, class T, class Op>
T exclusive_run(It it, Out out, std::size_t count, T acc, Op& op) {
  for (std::size_t i = 0; i < count; ++i, ++it, ++out) {
    T next = std::invoke(op, acc, *it);
    *out = std::move(acc);
    acc = std::move(next);
  }
  return acc;
}

// Scans [lo, hi) of the input into the same positions of the output. `carry` is the total of everything
// before lo (empty: nothing before, for an inclusive scan without init) and becomes the total up to hi. Each
// input element is read before its output is written, so the output may be the input.
template <class It, class Out, class T, class Op>
void scan_block(It first, Out d_first, std::size_t lo, std::size_t hi, std::optional<T>& carry, Op& op,
                bool inclusive) {
  if (lo >= hi) return;
  It it = at(first, lo);
  Out out = at(d_first, lo);
  std::size_t count = hi - lo;
  if (!inclusive) {
    *carry = exclusive_run(it, out, count, std::move(*carry), op);
    return;
  }
  if (!carry) {
    carry.emplace(*it);
    *out = *carry;
    ++it;
    ++out;
    --count;
  }
  *carry = inclusive_run(it, out, count, std::move(*carry), op);
}

// The fold of [lo, hi) (not empty): step 1 of a chunk (scan_ctx).
template <class It, class T, class Op>
T fold_block(It first, std::size_t lo, std::size_t hi, Op& op) {
  It it = at(first, lo);
  T acc(*it);
  ++it;
  for (std::size_t i = lo + 1; i < hi; ++i, ++it) acc = std::invoke(op, std::move(acc), *it);
  return acc;
}

// The parallel part of a scan, in one pass over memory: a chained scan whose carries are handed from chunk to
// chunk with bounded waits (docs/algorithms.md "The scan's chunk chain" has the protocol and why it is
// right). The range is cut into chunks small enough to stay in a core's cache (scan_chunk_bytes).
// Participants (one task per worker) take chunk indices in increasing order from a shared counter. For chunk
// c a participant
//   1. folds the chunk into sums[c], reading it from memory (not the last chunk: nobody needs its total),
//   2. waits for the carry, the total up to the end of chunk c - 1 (prefix[c - 1], announced through
//      baton[c]). If it does not come within scan_wait_limit_ns, the participant leaves chunk c to whoever
//      publishes prefix[c - 1], and takes another chunk: a preempted participant never holds the others up.
//   3. Whoever continues chunk c (its participant, or the one that published prefix[c - 1]) publishes
//      prefix[c] = prefix[c - 1] op sums[c] through baton[c + 1], then scans the chunk from the carry: from
//      the cache when it folded the chunk itself, so that each element is read from memory once and written
//      once. If chunk c + 1 was left to it, it continues with that one.
// The carry into chunk c is always prefix[c - 1] op sums[c], in chunk order whoever runs which chunk, so the
// grouping depends only on the chunks: fj::fixed_grain and fj::grain scans are deterministic.
template <class It, class Out, class T, class Op>
struct scan_ctx : piece_state {
  scan_ctx(It f, Out d, Op* o, bool incl) : first(f), d_first(d), op(o), inclusive(incl) {}

  // baton[c]: who continues chunk c, between its participant and whoever publishes prefix[c - 1].
  enum baton_state : unsigned char {
    nobody_yet = 0,
    carry_ready = 1,  // prefix[c - 1] is written: chunk c's participant continues
    left = 2,  // chunk c's participant left (sums[c] is written): the publisher of prefix[c - 1] continues
  };

  It first;
  Out d_first;
  Op* op;
  bool inclusive;
  std::size_t lo = 0;  // the chunks cover [lo, n)
  std::size_t n = 0;
  std::size_t chunk = 1;  // chunk c is [lo + c * chunk, min(lo + (c + 1) * chunk, n))
  std::size_t chunks = 0;
  std::optional<T> initial;                             // the total before chunk 0 (empty: none)
  std::atomic<std::size_t> next_chunk{0};               // the next chunk index to hand out
  std::vector<std::optional<T>> sums;                   // sums[c]: the fold of chunk c
  std::vector<std::optional<T>> prefix;                 // prefix[c]: the total up to the end of chunk c
  std::unique_ptr<std::atomic<unsigned char>[]> baton;  // baton[c], c in [1, chunks)

  [[nodiscard]] std::size_t begin_of(std::size_t c) const { return lo + c * chunk; }
  [[nodiscard]] std::size_t end_of(std::size_t c) const { return std::min(n, lo + (c + 1) * chunk); }

  void prepare(std::optional<T> carry) {
    initial = std::move(carry);
    sums.resize(chunks);
    prefix.resize(chunks);
    baton = std::make_unique<std::atomic<unsigned char>[]>(chunks);  // value-initialised: nobody_yet
  }

  // A participant: takes chunks until there are none left or the scan stopped (an exception).
  void participate() {
    stopping_on_throw(stop, [&] {
      // Whether to wait for the next chunk's carry: not after a chunk this participant had to leave, since the
      // chain is then behind (a preempted participant) and every wait would time out; again once a carry
      // arrived in time.
      bool patient = true;
      while (!stop.stopped()) {
        // relaxed: the counter only hands out distinct indices; nothing is published through it.
        std::size_t const c = next_chunk.fetch_add(1, std::memory_order_relaxed);
        if (c >= chunks) return;
        patient = start_chunk(c, patient);
      }
    });
  }

 private:
  [[nodiscard]] bool is_last(std::size_t c) const { return c + 1 == chunks; }

  // Steps 1 and 2 for chunk c (the wait only if `patient`), then step 3 if this participant continues it.
  // Returns whether it did.
  bool start_chunk(std::size_t c, bool patient) {
    if (!is_last(c)) sums[c].emplace(fold_block<It, T>(first, begin_of(c), end_of(c), *op));
    if (c == 0) {
      continue_from(0, initial);
      return true;
    }
    if (patient && wait_for_carry(c)) {
      continue_from(c, prefix[c - 1]);
      return true;
    }
    if (stop.stopped()) return false;
    chaos_point();
    // acq_rel: release publishes sums[c] to the publisher of prefix[c - 1] if it finds `left`; acquire pairs
    // with its exchange (prefix[c - 1] is then visible) if it came first. Exactly one of the two exchanges
    // sees the other's value: that side continues chunk c.
    if (baton[c].exchange(left, std::memory_order_acq_rel) != carry_ready) return false;
    continue_from(c, prefix[c - 1]);
    return true;
  }

  // True once baton[c] says carry_ready (prefix[c - 1] is then visible); false after scan_wait_limit_ns, or
  // when the scan stopped.
  bool wait_for_carry(std::size_t c) {
    using clock = std::chrono::steady_clock;
    clock::time_point const start = clock::now();
    // relaxed: a setting, read once per wait; nothing is published through it.
    std::uint64_t const limit = scan_wait_limit_ns.load(std::memory_order_relaxed);
    for (std::uint32_t spin = 1;; ++spin) {
      // acquire: pairs with the acq_rel exchange in continue_from() that published prefix[c - 1].
      if (baton[c].load(std::memory_order_acquire) == carry_ready) return true;
      if (spin % 64 == 0) {  // the clock and the stop flag now and then
        if (stop.stopped()) return false;
        auto const waited = static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start).count());
        if (waited >= limit) return false;
        if (waited >= scan_spin_ns) {
          std::this_thread::yield();
          continue;
        }
      }
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }

  // Step 3 from chunk c, whose carry this participant holds (sums[c] is written unless c is the last chunk),
  // and on through every following chunk that was left to it. The prefixes of all those chunks are published
  // first, then the chunks scanned, so that the carry reaches the participants after them without waiting
  // for these scans.
  void continue_from(std::size_t c, std::optional<T> carry) {
    std::size_t last_taken = c;
    for (std::size_t k = c; !is_last(k); ++k) {
      std::optional<T> const& into = k == c ? carry : prefix[k - 1];
      if (into) {
        prefix[k].emplace(std::invoke(*op, *into, std::move(*sums[k])));
      } else {
        prefix[k] = std::move(sums[k]);
      }
      chaos_point();
      // acq_rel: release publishes prefix[k] to chunk k + 1's participant (its acquire load or exchange);
      // acquire pairs with its exchange if it left, so that sums[k + 1] is visible here.
      if (baton[k + 1].exchange(carry_ready, std::memory_order_acq_rel) != left) break;
      last_taken = k + 1;
    }
    if (stop.stopped()) return;
    scan_block(first, d_first, begin_of(c), end_of(c), carry, *op, inclusive);
    for (std::size_t k = c + 1; k <= last_taken; ++k) {
      if (stop.stopped()) return;
      std::optional<T> from = prefix[k - 1];
      scan_block(first, d_first, begin_of(k), end_of(k), from, *op, inclusive);
    }
  }
};

// k participants (k >= 1) in a tree of forks: a thief that steals a continuation starts the participants of
// that subtree, so idle workers join the scan as they arrive; a participant that finds no chunk left returns.
template <class Ctx>
task<void> scan_participants(Ctx* ctx, std::size_t k) {
  if (k > 1) {
    co_await fj::fork(scan_participants<Ctx>, ctx, k / 2);
    co_await fj::call(scan_participants<Ctx>, ctx, k - k / 2);
    co_await fj::join;
    co_return;
  }
  ctx->participate();
}

// The serial part of a scan: everything (small inputs), or a timed prefix. Returns how far it got; `carry`
// becomes the total so far. For a fixed partition the split does not depend on timing.
template <class It, class Out, class T, class Op>
std::size_t scan_start(It first, Out d_first, std::size_t n, std::optional<T>& carry, Op& op, bool inclusive,
                       partition p, std::uint64_t budget_ns) {
  if (p.how() != partition::kind::automatic) {
    if (n > p.size()) return 0;
  } else if (n >= serial_cutoff && budget_ns != unlimited_ns) {
    std::size_t const done = timed_prefix(n, budget_ns, [&](std::size_t lo, std::size_t hi) {
                               scan_block(first, d_first, lo, hi, carry, op, inclusive);
                             }).done;
    if (n - done > scan_chunk_length<T>()) return done;
    // The rest would be a single chunk, scanned on the pool after a wake-up: cheaper here, in one pass.
    scan_block(first, d_first, done, n, carry, op, inclusive);
    return n;
  }
  scan_block(first, d_first, 0, n, carry, op, inclusive);
  return n;
}

// Cuts [done, n) into chunks: of the grain's length for fj::fixed_grain and fj::grain (longer for fj::grain
// if that would make more than scan_max_grain_chunks), else of scan_chunk_length. Then gets the context ready
// for `carry`, the total before `done`.
template <class T, class Ctx>
void plan_chunks(Ctx& ctx, std::size_t done, std::size_t n, partition p, std::optional<T> carry) {
  std::size_t const rest = n - done;
  std::size_t chunk = p.size();
  if (p.how() == partition::kind::automatic) {
    chunk = scan_chunk_length<T>();
  } else if (p.how() == partition::kind::grain) {
    chunk = std::max(chunk, (rest + scan_max_grain_chunks - 1) / scan_max_grain_chunks);
  }
  ctx.lo = done;
  ctx.n = n;
  ctx.chunk = chunk;
  ctx.chunks = (rest + chunk - 1) / chunk;
  ctx.prepare(std::move(carry));
}

}  // namespace fj::detail::algo
