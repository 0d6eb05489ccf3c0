#pragma once
// inclusive_scan and exclusive_scan. The part of a scan that goes parallel is cut into chunks, and the chunks
// are taken from both ends at once (the hybrid scan): the task that starts it scans chunks from the LEFT in
// one pass, since it knows the carry into each, while the other workers fold chunks from the RIGHT. When the
// ends meet, the carries into the folded chunks follow from their folds in one serial pass, and the folded
// chunks are scanned in parallel (their second read). On one worker everything is read once; the more the
// folders take, the more is read twice, as in the two-pass scan (fold every chunk, then scan every chunk).
//
// The carry into the chunk after a scanned one is carry op fold(chunk), with the chunk folded on its own
// beside the scan, as the two-pass scan computes it: results do not depend on where the ends meet, only on
// the chunks, which depend only on the range's length and the partition, never on the worker count or on
// timing (for fj::fixed_grain; the automatic partition's timed prefix moves the chunks).
//
// Reading twice is only for what the folders take: what runs on the caller (all of an input below the
// serial cutoff or within the grain, the timed prefix, and a remainder of a single chunk) is scanned in one
// pass, as std::inclusive_scan does.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "forkjoin/detail/algorithm/fold_run.hpp"
#include "forkjoin/detail/algorithm/loop.hpp"
#include "forkjoin/detail/algorithm/partition.hpp"

namespace fj::detail::algo {

// The most chunks a scan is cut into by default: many more than workers, few enough that the serial pass
// between the two parallel ones costs nothing.
inline constexpr std::size_t scan_chunks = 256;
// The least chunk length by default.
inline constexpr std::size_t scan_min_chunk = 4096;

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

// Scans the `count` (at least 1) elements at `it` from `carry` into `out`, as inclusive_run or exclusive_run
// do, and folds them on their own beside it; returns carry op fold. Each element is read before its output
// is written, so the output may be the input.
template <class It, class Out, class T, class Op>
T scan_folding_run(It it, Out out, std::size_t count, T& carry, Op& op, bool inclusive) {
  T acc = carry;
  T fold(*it);
  if (inclusive) {
    acc = std::invoke(op, std::move(acc), *it);
    *out = acc;
    ++it;
    ++out;
    for (std::size_t i = 1; i < count; ++i, ++it, ++out) {
      auto&& x = *it;
      fold = std::invoke(op, std::move(fold), x);
      acc = std::invoke(op, std::move(acc), x);
      *out = acc;
    }
  } else {
    T next = std::invoke(op, acc, *it);
    *out = std::move(acc);
    acc = std::move(next);
    ++it;
    ++out;
    for (std::size_t i = 1; i < count; ++i, ++it, ++out) {
      auto&& x = *it;
      fold = std::invoke(op, std::move(fold), x);
      next = std::invoke(op, acc, x);
      *out = std::move(acc);
      acc = std::move(next);
    }
  }
  return std::invoke(op, carry, std::move(fold));
}

// The fold of [lo, hi) (not empty), for pass 1.
// One accumulator, as scan_folding_run's fold of the chunks the left end scans: a chunk's fold is then the
// same bits whichever end took it, which fixed_grain's determinism needs (not fold_run's four).
template <class It, class T, class Op>
T fold_block(It first, std::size_t lo, std::size_t hi, Op& op) {
  It it = at(first, lo);
  T acc(*it);
  std::identity same;
  return fold_one(++it, hi - lo - 1, std::move(acc), op, same);
}

// The chunks not yet taken, [left, right), in one atomic word (left in the low half) so that one
// compare-exchange takes a chunk from either end and the ends never cross. A scan with more chunks than a
// half holds runs the two-pass scan instead (scan_fits_hybrid).
class chunk_ends {
 public:
  static constexpr std::uint64_t half_max = std::numeric_limits<std::uint32_t>::max();

  void reset(std::uint64_t chunks) noexcept {
    // relaxed: set before the tasks that take chunks start (the fork publishes it).
    word_.store(chunks << 32, std::memory_order_relaxed);
  }
  // The leftmost chunk not taken, now taken; false once the ends have met.
  bool take_left(std::size_t& c) noexcept { return take(c, 1, false); }
  // The rightmost chunk not taken, now taken; false once the ends have met.
  bool take_right(std::size_t& c) noexcept { return take(c, std::uint64_t{1} << 32, true); }
  // Chunks not taken yet (a hint for splitting).
  [[nodiscard]] std::uint64_t untaken() const noexcept {
    // relaxed: a hint; taking a chunk re-reads the word in its compare-exchange.
    std::uint64_t const w = word_.load(std::memory_order_relaxed);
    return (w >> 32) - std::min(w >> 32, w & half_max);
  }
  // Where the ends met: chunks below were scanned from the left, the others folded. Read after the join.
  [[nodiscard]] std::size_t meeting_point() const noexcept {
    // relaxed: the join that ends the taking orders every compare-exchange before this load.
    return static_cast<std::size_t>(word_.load(std::memory_order_relaxed) & half_max);
  }

 private:
  bool take(std::size_t& c, std::uint64_t step, bool from_right) noexcept {
    // relaxed: the word only decides who owns which chunk (the read-modify-write makes each chunk taken
    // once); nothing is published through it: the folds and carries reach the scan's second pass through
    // the join after both ends stop.
    std::uint64_t w = word_.load(std::memory_order_relaxed);
    while (true) {
      std::uint64_t const left = w & half_max;
      std::uint64_t const right = w >> 32;
      if (left >= right) return false;
      // relaxed (both orders): as above.
      if (word_.compare_exchange_weak(w, from_right ? w - step : w + step, std::memory_order_relaxed,
                                      std::memory_order_relaxed)) {
        c = static_cast<std::size_t>(from_right ? right - 1 : left);
        return true;
      }
    }
  }

  std::atomic<std::uint64_t> word_{0};
};

template <class It, class Out, class T, class Op>
struct scan_ctx : piece_state {  // the loop over chunk indices runs one chunk per leaf (block 1)
  scan_ctx(It f, Out d, Op* o, bool incl) : first(f), d_first(d), op(o), inclusive(incl) {}

  It first;
  Out d_first;
  Op* op;
  bool inclusive;
  std::size_t lo = 0;  // the chunks cover [lo, n)
  std::size_t n = 0;
  std::size_t chunk = 1;  // chunk c is [lo + c * chunk, min(lo + (c + 1) * chunk, n))
  std::size_t chunks = 0;
  bool second_pass = false;
  std::vector<std::optional<T>> sums;     // pass 1: the fold of chunk c
  std::vector<std::optional<T>> carries;  // pass 2: the total before chunk c
  chunk_ends ends;                        // the hybrid scan: chunks not taken by either end

  [[nodiscard]] std::size_t begin_of(std::size_t c) const { return lo + c * chunk; }
  [[nodiscard]] std::size_t end_of(std::size_t c) const { return std::min(n, lo + (c + 1) * chunk); }

  // Runs chunks [c_lo, c_hi) of the current pass (the loop engine's body).
  void run(std::size_t c_lo, std::size_t c_hi) {
    stopping_on_throw(stop, [&] {
      for (std::size_t c = c_lo; c < c_hi; ++c) {
        if (second_pass) {
          std::optional<T> carry = carries[c];
          scan_block(first, d_first, begin_of(c), end_of(c), carry, *op, inclusive);
        } else {
          sums[c].emplace(fold_block<It, T>(first, begin_of(c), end_of(c), *op));
        }
      }
    });
  }

  // The hybrid scan's left end: takes chunks from the left and scans each in one pass from its carry
  // (carries[c], set by the chunk before), setting the next chunk's carry.
  void scan_from_left() {
    stopping_on_throw(stop, [&] {
      std::size_t c = 0;
      while (!stop.stopped() && ends.take_left(c)) {
        std::size_t const from = begin_of(c);
        std::size_t const to = end_of(c);
        std::optional<T>& carry = carries[c];
        if (!carry) {
          // An inclusive scan's first chunk without init: its scan is its fold, the next chunk's carry.
          std::optional<T> total;
          scan_block(first, d_first, from, to, total, *op, true);
          if (c + 1 < chunks) carries[c + 1] = std::move(total);
        } else {
          T next = scan_folding_run(at(first, from), at(d_first, from), to - from, *carry, *op, inclusive);
          if (c + 1 < chunks) carries[c + 1].emplace(std::move(next));
        }
      }
    });
  }

  // The hybrid scan's right end: takes chunks from the right and folds each, except the last chunk, whose
  // fold nothing needs (it is only scanned, in the second pass).
  void fold_from_right_one(std::size_t c) {
    stopping_on_throw(stop, [&] {
      if (c + 1 < chunks) sums[c].emplace(fold_block<It, T>(first, begin_of(c), end_of(c), *op));
    });
  }

  // Between the passes: the carry into each chunk from `from` on, in chunk order (carries[from] is set).
  void carry_forward_from(std::size_t from) {
    for (std::size_t c = from; c + 1 < chunks; ++c) {
      if (carries[c]) {
        carries[c + 1].emplace(std::invoke(*op, *carries[c], std::move(*sums[c])));
      } else {
        carries[c + 1] = std::move(sums[c]);
      }
    }
  }

  // Between the passes: the carry into each chunk, in chunk order.
  void carry_forward(std::optional<T> initial) {
    carries.resize(chunks);
    carries[0] = std::move(initial);
    for (std::size_t c = 0; c + 1 < chunks; ++c) {
      if (carries[c]) {
        carries[c + 1].emplace(std::invoke(*op, *carries[c], std::move(*sums[c])));
      } else {
        carries[c + 1] = std::move(sums[c]);
      }
    }
  }
};

// The two parallel passes over [ctx->lo, ctx->n), starting from `initial`.
template <class Ctx, class T>
task<void> scan_passes(Ctx* ctx, std::optional<T> initial) {
  ctx->sums.resize(ctx->chunks);
  if (ctx->chunks > 1) co_await fj::call(fixed_loop<Ctx>, ctx, std::size_t{0}, ctx->chunks - 1);
  co_await fj::join;
  ctx->carry_forward(std::move(initial));
  ctx->second_pass = true;
  co_await fj::call(fixed_loop<Ctx>, ctx, std::size_t{0}, ctx->chunks);
  co_await fj::join;
}

template <class Ctx>
task<void> scan_left_end(Ctx* ctx) {
  ctx->scan_from_left();
  co_return;
}

// Folds chunks from the right until the ends meet. Between chunks, when this worker has nothing a thief
// could take (should_split), it forks another right end first, so that every idle worker can join in; a
// worker holds at most one chunk at a time, so a preempted one delays the join by at most one chunk.
template <class Ctx>
task<void> scan_right_end(Ctx* ctx) {
  std::size_t c = 0;
  while (!ctx->stop.stopped()) {
    if (ctx->ends.untaken() > 1 && should_split()) {
      co_await fj::fork(scan_right_end<Ctx>, ctx);
      continue;
    }
    if (!ctx->ends.take_right(c)) break;
    ctx->fold_from_right_one(c);
  }
  co_await fj::join;
}

// Whether the hybrid scan can number the chunks in half a word.
template <class Ctx>
[[nodiscard]] bool scan_fits_hybrid(const Ctx& ctx) noexcept {
  return ctx.chunks <= chunk_ends::half_max;
}

// The hybrid scan of [ctx->lo, ctx->n) from `initial` (the top of this file).
template <class Ctx, class T>
task<void> scan_hybrid(Ctx* ctx, std::optional<T> initial) {
  ctx->sums.resize(ctx->chunks);
  ctx->carries.resize(ctx->chunks);
  ctx->carries[0] = std::move(initial);
  ctx->ends.reset(ctx->chunks);
  // The left end runs here at once; the right ends start when a thief takes what follows the fork.
  co_await fj::fork(scan_left_end<Ctx>, ctx);
  co_await fj::call(scan_right_end<Ctx>, ctx);
  co_await fj::join;
  std::size_t const meet = ctx->ends.meeting_point();
  if (meet == ctx->chunks) co_return;
  ctx->carry_forward_from(meet);
  ctx->second_pass = true;
  co_await fj::call(fixed_loop<Ctx>, ctx, meet, ctx->chunks);
  co_await fj::join;
}

// The parallel part of a scan: the hybrid scan, or the two passes when the chunks do not fit its word.
template <class Ctx, class T>
task<void> scan_parallel(Ctx* ctx, std::optional<T> initial) {
  if (scan_fits_hybrid(*ctx)) {
    co_await fj::call(scan_hybrid<Ctx, T>, ctx, std::move(initial));
  } else {
    co_await fj::call(scan_passes<Ctx, T>, ctx, std::move(initial));
  }
  co_await fj::join;
}

// The serial part of a scan: everything (small inputs), or a timed prefix. Returns how far it got; `carry`
// becomes the total so far. For a fixed partition the split does not depend on timing.
template <class It, class Out, class T, class Op, class Half = no_prewake>
std::size_t scan_start(It first, Out d_first, std::size_t n, std::optional<T>& carry, Op& op, bool inclusive,
                       partition p, std::uint64_t budget_ns, Half half = {}) {
  if (p.how() != partition::kind::automatic) {
    if (n > p.size()) return 0;
  } else if (n >= serial_cutoff && budget_ns != unlimited_ns) {
    auto const block = [&](std::size_t lo, std::size_t hi) {
      scan_block(first, d_first, lo, hi, carry, op, inclusive);
    };
    std::size_t const done = timed_prefix(n, budget_ns, block, prefix_end::at_budget, half).done;
    if (n - done > scan_min_chunk) return done;
    // The rest would be a single chunk, scanned on the pool after a wake-up: cheaper here, in one pass.
    scan_block(first, d_first, done, n, carry, op, inclusive);
    return n;
  }
  scan_block(first, d_first, 0, n, carry, op, inclusive);
  return n;
}

template <class Ctx>
void plan_chunks(Ctx& ctx, std::size_t done, std::size_t n, partition p) {
  std::size_t const rest = n - done;
  std::size_t chunk = p.size();
  if (p.how() != partition::kind::fixed) {
    std::size_t const least = p.how() == partition::kind::grain ? p.size() : scan_min_chunk;
    chunk = std::max(least, (rest + scan_chunks - 1) / scan_chunks);
  }
  ctx.lo = done;
  ctx.n = n;
  ctx.chunk = chunk;
  ctx.chunks = (rest + chunk - 1) / chunk;
}

}  // namespace fj::detail::algo
