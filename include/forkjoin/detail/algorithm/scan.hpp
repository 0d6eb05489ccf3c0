#pragma once
// inclusive_scan and exclusive_scan. A scan's parallel form reads the input twice: the range is cut into
// chunks, pass 1 folds every chunk but the last (in parallel), a serial pass turns those sums into the value
// carried into each chunk, and pass 2 scans every chunk from its carry (in parallel). The chunks depend only
// on the range's length and the partition, never on the worker count.
//
// Reading twice is only for the part that goes parallel: what runs on the caller (all of an input below the
// serial cutoff or within the grain, the timed prefix, and a remainder of a single chunk) is scanned in one
// pass, as std::inclusive_scan does.

#include <cstddef>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

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

// The fold of [lo, hi) (not empty), for pass 1.
template <class It, class T, class Op>
T fold_block(It first, std::size_t lo, std::size_t hi, Op& op) {
  It it = at(first, lo);
  T acc(*it);
  ++it;
  for (std::size_t i = lo + 1; i < hi; ++i, ++it) acc = std::invoke(op, std::move(acc), *it);
  return acc;
}

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

// The serial part of a scan: everything (small inputs), or a timed prefix. Returns how far it got; `carry`
// becomes the total so far. For a fixed partition the split does not depend on timing.
template <class It, class Out, class T, class Op, class Half = no_prewake>
std::size_t scan_start(It first, Out d_first, std::size_t n, std::optional<T>& carry, Op& op, bool inclusive,
                       partition p, std::uint64_t budget_ns, Half half = {}) {
  if (p.how() != partition::kind::automatic) {
    if (n > p.size()) return 0;
  } else if (n >= serial_cutoff && budget_ns != unlimited_ns) {
    std::size_t const done =
        timed_prefix(
            n, budget_ns,
            [&](std::size_t lo, std::size_t hi) { scan_block(first, d_first, lo, hi, carry, op, inclusive); },
            half)
            .done;
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
