#pragma once
// inclusive_scan and exclusive_scan. What runs on the caller (all of an input below the serial cutoff or
// within the grain, the timed prefix, and a remainder of at most scan_min_chunk elements) is scanned in one
// pass, as std::inclusive_scan does. The rest goes parallel as a chain of steps taken in index order
// (docs/protocols/scan.md): each step is scanned from memory on its own, as if nothing came before it, and
// once the total before it is known and the total after it published, that total is put in front of each of
// its outputs, in the core's cache. So every element is read from memory once, at any worker count. (A call
// small enough for the last-level cache, or whose output cannot be read back as the accumulator type, folds
// each step first and scans it after instead.) A step whose carry comes while its first pass is still
// running scans the rest from that carry in one pass, and gives only the part before the second pass.
//
// The carry into the chunk after chunk c is carry op fold(c), with the chunk folded on its own by one
// accumulator, and each output of chunk c is carry op (its prefix within the chunk) when its step scans
// first, or the chunk scanned from the carry when it folds first: the results depend only on the chunks and
// on that choice, which depend only on the range's length, the types and the partition, never on the worker
// count or on timing (for fj::fixed_grain, whose steps never catch up; with the automatic partition and
// fj::grain the timed prefix and the catch-up move the grouping).

#include <algorithm>
#include <array>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "forkjoin/detail/algorithm/fold_run.hpp"
#include "forkjoin/detail/algorithm/loop.hpp"
#include "forkjoin/detail/algorithm/partition.hpp"
#include "forkjoin/detail/algorithm/streaming_store.hpp"
#include "forkjoin/detail/cpu_relax.hpp"

namespace fj::detail::algo {

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

// The fold of [lo, hi) (not empty): one accumulator (fold_one), so that a chunk's fold, and with it every
// carry, depends only on the chunk's bounds (fixed_grain's determinism; not fold_run's four accumulators).
template <class It, class T, class Op>
T fold_block(It first, std::size_t lo, std::size_t hi, Op& op) {
  It it = at(first, lo);
  T acc(*it);
  std::identity same;
  return fold_one(++it, hi - lo - 1, std::move(acc), op, same);
}

// Scans [lo, hi) (not empty) on its own, as if nothing came before it: for an inclusive scan every output
// of it, for an exclusive one every output but lo's, which is the carry alone (add_carry writes it). Returns
// the fold of [lo, hi), the same value as fold_block's. Each input element is read before its output is
// written, so the output may be the input.
template <class It, class Out, class T, class Op>
T local_scan(It first, Out d_first, std::size_t lo, std::size_t hi, Op& op, bool inclusive) {
  It it = at(first, lo);
  Out out = at(d_first, lo);
  T acc(*it);
  ++it;
  if (inclusive) {
    *out = acc;
    return inclusive_run(it, ++out, hi - lo - 1, std::move(acc), op);
  }
  return exclusive_run(it, ++out, hi - lo - 1, std::move(acc), op);
}

// After local_scan of [lo, hi): each output becomes `c` op output, and for an exclusive scan the first output
// `c` itself. `c` by value: a copy the stores below cannot alias, so the loop keeps it in registers and
// vectorises.
template <class Out, class T, class Op>
void add_carry(Out d_first, std::size_t lo, std::size_t hi,
               T c,  // NOLINT(performance-unnecessary-value-param)
               Op& op, bool inclusive) {
  Out out = at(d_first, lo);
  std::size_t count = hi - lo;
  if (!inclusive) {
    *out = c;
    ++out;
    --count;
  }
  for (std::size_t i = 0; i < count; ++i, ++out) *out = std::invoke(op, c, std::move(*out));
}

// Whether the chain may scan each step first and add its carry after (local_scan, add_carry): the output
// must hold the accumulator type itself, since add_carry reads back what local_scan wrote. Otherwise a step
// is folded first and scanned after its carry came, which reads its input twice (the second time from cache).
template <class Out, class T>
inline constexpr bool scans_then_adds =
    std::same_as<std::iter_value_t<Out>, T> && std::same_as<std::iter_reference_t<Out>, T&>;

// A call whose input and output together take at least this many bytes scans first and adds after (where it
// may): such a call streams from memory, and a step's first pass then moves its input in and its output out
// at once. Below it they are likely still in the last-level cache from whatever wrote them, and there a fold
// from that cache followed by a scan from the core's own is quicker than a scan from that cache followed by a
// second pass over the outputs. A constant, about a large last-level cache, rather than this machine's cache
// size: which of the two groupings a scan uses (section 1 of docs/protocols/scan.md) then depends only on the
// call's length and types, on every machine.
inline constexpr std::size_t scan_first_bytes = std::size_t{32} << 20;

// The most bytes of input and output of a step of the chain by default (32,768 elements of 8 bytes in and 8
// out): a step is scanned from memory and then its output read again (or folded from memory and then its
// input read again), so both its input and its output should still be in the core's own cache (L2) at the
// second read, whatever the elements' size.
inline constexpr std::size_t chain_step_bytes = std::size_t{512} << 10;
// The least step length by default (unless chain_step_bytes allows fewer elements), and the least remainder
// after the timed prefix that goes parallel.
inline constexpr std::size_t scan_min_chunk = 4096;
// The parallel part is cut into at least this many steps while they stay at least scan_min_chunk long, so
// that a medium input still has steps for every thread to take in turn.
inline constexpr std::size_t chain_least_steps = 64;
// How much of a step's input and output (in bytes) its first pass covers between two looks at whether the
// step's carry has come (chain_ctx::catch_up): once it has, the rest of the step is scanned from it in one
// pass, and only what the first pass covered needs the second.
inline constexpr std::size_t chain_look_bytes = std::size_t{32} << 10;
// A thread waiting for a carry polls this many times with a pause, then yields between polls: the thread
// that owes the carry may have lost its core (more threads than cores), and then only a yield lets it run.
inline constexpr unsigned chain_spin_polls = 2048;

// The carry into one step: the total of everything before it (empty: nothing before, for an inclusive scan
// without init), written once by the thread that took the step before and read once by the step's own.
template <class T>
struct chain_link {
  std::atomic<bool> ready{false};
  std::optional<T> carry;
};

// A scan's parallel part as a chain (docs/protocols/scan.md). [lo, n) is cut into chunks (the grouping of
// the carries, as fj::fixed_grain asks), and consecutive chunks into steps of at most chain_step_bytes
// (one chunk per step, except for a fixed grain much smaller than that). The steps are taken strictly in
// index order, one fetch_add each, by every thread that joins. For step s a thread scans each of its chunks
// on its own (the read from memory; local_scan, which also gives the chunk's fold), waits for the carry into
// s, publishes the carry into s + 1 (carry op fold, chunk by chunk) and then puts each chunk's carry in front
// of its outputs (add_carry, in the core's cache). A call that likely fits in the last-level cache
// (scan_first_bytes), or whose output cannot hold the accumulator (scans_then_adds), folds each chunk first
// instead and scans it from its carry after. Except with fj::fixed_grain, a step's first pass looks for its
// carry as it goes and, once it has come, scans the rest of the step from it (catch_up). A thread never
// forks, suspends or takes other work between taking a step and publishing its carry, so the carry
// into step s is always on its way: whoever took s - 1 waits at most for s - 2, down to step 0, whose carry
// is set before the first take.
template <class It, class Out, class T, class Op>
struct chain_ctx {
  using acc_type = T;
  using in_iterator = It;
  using out_iterator = Out;

  chain_ctx(It f, Out d, Op* o, bool incl) : first(f), d_first(d), op(o), inclusive(incl) {}

  It first;
  Out d_first;
  Op* op;
  bool inclusive;
  stop_flag stop;
  std::size_t lo = 0;  // the chunks cover [lo, n)
  std::size_t n = 0;
  std::size_t chunk = 1;  // chunk c is [lo + c * chunk, min(lo + (c + 1) * chunk, n))
  std::size_t chunks = 0;
  std::size_t per_step = 1;  // step s is chunks [s * per_step, min((s + 1) * per_step, chunks))
  std::size_t steps = 0;
  std::unique_ptr<chain_link<T>[]> links;     // links[s]: the carry into step s
  std::unique_ptr<std::optional<T>[]> folds;  // per_step > 1: the fold of chunk c, then the carry after it
  // The next step to take, on a line of its own: every take writes it, and the links are read while it is.
  // Padding, not alignas: the context is a local of scan_in_task, and a coroutine frame is only aligned as
  // operator new aligns (an over-aligned local there is misaligned; UBSan reports it).
  std::array<std::byte, 64> pad_before_next{};
  std::atomic<std::size_t> next{0};
  std::array<std::byte, 64 - sizeof(std::atomic<std::size_t>)> pad_after_next{};
  // From ordinary code: the participants on the pool so far, and how many the call may have (P - 1: the
  // caller is the P-th thread). A participant that waits for a carry keeps its core, so one more thread
  // than cores would make every step wait for whichever thread the system has set aside.
  std::atomic<std::size_t> helpers{0};
  std::size_t most_helpers = 0;

  [[nodiscard]] std::size_t begin_of(std::size_t c) const { return lo + c * chunk; }
  [[nodiscard]] std::size_t end_of(std::size_t c) const { return std::min(n, lo + (c + 1) * chunk); }

  // Before any thread takes a step: the carry into step 0 is known.
  void start(std::optional<T> initial) {
    links = std::make_unique<chain_link<T>[]>(steps);
    if (per_step > 1) folds = std::make_unique<std::optional<T>[]>(chunks);
    links[0].carry = std::move(initial);
    // relaxed: before the first take; the submission of the pool's part (or the fork of a participant)
    // publishes it, as it does the context itself.
    links[0].ready.store(true, std::memory_order_relaxed);  // model: scan.start
  }

  // Steps not taken yet (a hint for splitting).
  [[nodiscard]] std::size_t untaken() const noexcept {
    // relaxed: a hint; a take re-reads the counter in its read-modify-write.
    std::size_t const taken = next.load(std::memory_order_relaxed);  // model: scan.untaken
    return steps - std::min(steps, taken);
  }

  // The next step in index order, now this thread's; false when all are taken.
  bool take(std::size_t& s) noexcept {
    // Tested first so that the counter stops growing once all steps are taken (no wrap-around).
    if (untaken() == 0) return false;
    // relaxed: the counter only decides who owns which step (the read-modify-write hands each number out
    // once); nothing is published through it, the carries travel through the links.
    s = next.fetch_add(1, std::memory_order_relaxed);  // model: scan.take
    return s < steps;
  }

  // Waits until the carry into step s is published; false if the call stopped (an exception elsewhere: the
  // carry may then never come).
  bool wait_for(std::size_t s) {
    chain_link<T>& in = links[s];
    // acquire: pairs with the release store in run() by the thread that took step s - 1 (or with nothing
    // for step 0, set before the start): its write of the carry happens before our read of it.
    for (unsigned polls = 0; !in.ready.load(std::memory_order_acquire); ++polls) {  // model: scan.wait
      if (stop.stopped()) return false;
      if (polls < chain_spin_polls) {
        cpu_relax();
      } else {
        std::this_thread::yield();
      }
    }
    return true;
  }

  // carry op fold, or fold when nothing comes before.
  std::optional<T> after(const std::optional<T>& carry, std::optional<T> fold) {
    if (!carry) return fold;
    return std::optional<T>(std::invoke(*op, *carry, std::move(*fold)));
  }

  // Publishes the carry into step s + 1.
  void publish(std::size_t s, std::optional<T> carry) {
    chain_link<T>& out = links[s + 1];
    out.carry = std::move(carry);
    // release: pairs with the acquire load in wait_for(s + 1) by the thread that took step s + 1.
    out.ready.store(true, std::memory_order_release);  // model: scan.publish
  }

  // Whether this call's steps scan first and add their carries after (plan_chunks sets it).
  bool scans_first = false;
  // Whether the part of a step scanned once its carry has come (catch_up) is written with streaming stores:
  // an output larger than the last-level cache (streaming_store.hpp, streams; plan_chunks sets it). Those
  // outputs are final, and nothing reads them back; the first pass's outputs are, and are not streamed.
  bool stream = false;
  // Elements between two looks at a step's link during its first pass (catch_up), or 0: never look (a fixed
  // grain, whose grouping must not depend on when a carry comes).
  std::size_t look = 0;

  // Whether the carry into step s has been published: wait_for without the wait.
  [[nodiscard]] bool arrived(std::size_t s) const noexcept {
    // acquire: as wait_for's load, it pairs with the release store in publish by the owner of step s - 1.
    return links[s].ready.load(std::memory_order_acquire);  // model: scan.peek
  }

  // The first pass over [from, to), continuing `so_far`, the same pass over the elements before `from` in
  // this step (empty: `from` begins the step): the local scan goes on from it, or the fold does.
  void first_pass_part(std::size_t from, std::size_t to, std::optional<T>& so_far) {
    if constexpr (scans_then_adds<Out, T>) {
      if (scans_first) {
        if (!so_far) {
          so_far.emplace(local_scan<It, Out, T>(first, d_first, from, to, *op, inclusive));
        } else if (inclusive) {
          *so_far = inclusive_run(at(first, from), at(d_first, from), to - from, std::move(*so_far), *op);
        } else {
          *so_far = exclusive_run(at(first, from), at(d_first, from), to - from, std::move(*so_far), *op);
        }
        return;
      }
    }
    if (!so_far) {
      so_far.emplace(fold_block<It, T>(first, from, to, *op));
    } else {
      std::identity same;
      *so_far = fold_one(at(first, from), to - from, std::move(*so_far), *op, same);
    }
  }

  // The second pass over [from, to) of a step, from `carry`, the carry into the step.
  void second_pass_part(std::size_t from, std::size_t to, std::optional<T>& carry) {
    if constexpr (scans_then_adds<Out, T>) {
      if (scans_first) {
        // An empty carry (the range's first chunk, inclusive, no init): the local scan is the scan.
        if (carry) add_carry(d_first, from, to, *carry, *op, inclusive);
        return;
      }
    }
    // scan_block leaves the running total in the carry, which nothing reads.
    scan_block(first, d_first, from, to, carry, *op, inclusive);
  }

  // Step s of one chunk, looking at its link every `look` elements of its first pass. If the carry comes
  // before the pass ends, the rest of the step is scanned from it in one pass (so its elements need no
  // second pass), the carry into s + 1 published, and then only [begin, where the first pass stopped) gets
  // the second pass. Two threads that take steps in turn each find the other's carry part of the way
  // through their own step, and so each does a second pass over that part only.
  void catch_up(std::size_t s, bool last) {
    std::size_t const step_lo = begin_of(s);
    std::size_t const step_hi = end_of(s);
    std::size_t pos = step_lo;
    std::optional<T> so_far;  // the first pass's result over [step_lo, pos)
    // Folding first, the last step is not folded: nothing needs its fold.
    if (scans_first || !last) {
      while (pos < step_hi && !arrived(s)) {
        std::size_t const end = pos + std::min(look, step_hi - pos);
        first_pass_part(pos, end, so_far);
        pos = end;
      }
    }
    if (!wait_for(s)) return;
    // Only this thread reads links[s], and only once: the carry may be moved from.
    std::optional<T> carry = std::move(links[s].carry);
    // Without a first pass (pos == step_lo) there is no second one either: the carry itself goes on.
    std::optional<T> total = so_far ? after(carry, std::move(so_far)) : std::move(carry);
    final_pass(pos, step_hi, total);
    if (!last) publish(s, std::move(total));
    if (pos > step_lo) second_pass_part(step_lo, pos, carry);
  }

  // The scan of [from, to) from `total`, the total of everything before `from`, into the output's final
  // values (scan_block), with streaming stores if `stream`; `total` becomes the total up to `to`.
  void final_pass(std::size_t from, std::size_t to, std::optional<T>& total) {
#if FJ_STREAMING_STORES
    if constexpr (streamable_output<Out>) {
      if (stream && total && from < to) {
        *total = streamed_scan(from, to, std::move(*total));
        return;
      }
    }
#endif
    scan_block(first, d_first, from, to, total, *op, inclusive);
  }

#if FJ_STREAMING_STORES
  // final_pass with streaming stores, from `acc`; returns the total up to `to`. Out of line, so that the
  // ordinary path's loop in catch_up is compiled as it was without it.
  [[gnu::noinline]] T streamed_scan(std::size_t from, std::size_t to, T acc) {
    It it = at(first, from);
    if (inclusive) {
      stream_fill(std::to_address(at(d_first, from)), to - from, [&] {
        acc = std::invoke(*op, std::move(acc), *it++);
        return acc;
      });
    } else {
      stream_fill(std::to_address(at(d_first, from)), to - from, [&] {
        T following = std::invoke(*op, acc, *it++);
        T before = std::move(acc);
        acc = std::move(following);
        return before;
      });
    }
    return acc;
  }
#endif

  // The first pass over chunk c, from memory: its local scan (scans_first) or its fold. The last chunk of the
  // last step is not folded: only its scan is needed, in one pass after the carry.
  std::optional<T> first_pass(std::size_t c, bool last_chunk) {
    std::optional<T> result;
    if (!last_chunk || scans_first) first_pass_part(begin_of(c), end_of(c), result);
    return result;
  }

  // The second pass over chunk c, from cache, once its carry is known.
  void second_pass(std::size_t c, std::optional<T>& carry) {
    second_pass_part(begin_of(c), end_of(c), carry);
  }

  // Step s: the first pass over its chunks, the wait for its carry, the carry into the next step published,
  // the second pass. Sets the stop flag if anything throws.
  void run(std::size_t s) {
    stopping_on_throw(stop, [&] {
      bool const last = s + 1 == steps;
      if (look != 0) {
        catch_up(s, last);
        return;
      }
      if (per_step == 1) {
        std::optional<T> fold = first_pass(s, last);
        if (!wait_for(s)) return;
        // Only this thread reads links[s], and only once: the carry may be moved from.
        std::optional<T> carry = std::move(links[s].carry);
        if (!last) publish(s, after(carry, std::move(fold)));
        second_pass(s, carry);
        return;
      }
      std::size_t const c_lo = s * per_step;
      std::size_t const c_hi = std::min(chunks, c_lo + per_step);
      for (std::size_t c = c_lo; c < c_hi; ++c) folds[c] = first_pass(c, last && c + 1 == c_hi);
      if (!wait_for(s)) return;
      std::optional<T> carry = std::move(links[s].carry);
      // folds[c] becomes the carry into chunk c + 1, in chunk order (not for the last chunk of all).
      std::size_t const carried = last ? c_hi - 1 : c_hi;
      for (std::size_t c = c_lo; c < carried; ++c) {
        folds[c] = after(c == c_lo ? carry : folds[c - 1], std::move(folds[c]));
      }
      if (!last) publish(s, folds[c_hi - 1]);
      second_pass(c_lo, carry);
      for (std::size_t c = c_lo + 1; c < c_hi; ++c) second_pass(c, folds[c - 1]);
    });
  }

  // Takes and runs steps until none is left or the call stops.
  void run_all() {
    std::size_t s = 0;
    while (!stop.stopped() && take(s)) run(s);
  }

  // From ordinary code: one more participant on the pool, if the call has room for it.
  bool add_helper() noexcept {
    // relaxed: a count of who may join; nothing is published through it (the fork publishes the context).
    if (helpers.fetch_add(1, std::memory_order_relaxed) < most_helpers) return true;  // model: none (a count)
    // relaxed: as above.
    helpers.fetch_sub(1, std::memory_order_relaxed);  // model: none (a count)
    return false;
  }
};

// A participant in the chain on the pool: takes and runs steps in index order; between steps, when this
// worker has nothing a thief could take, it forks another participant first, so that every idle worker can
// join in (beside a caller from ordinary code: only while the pool has room for one more and the call has
// fewer than P - 1 helpers, so that it keeps to P threads, docs/algorithms.md "Entering the pool"). It holds
// no step across the fork.
template <class Ctx, bool BesideCaller>
task<void> chain_part(Ctx* ctx) {
  std::size_t s = 0;
  while (!ctx->stop.stopped()) {
    if (ctx->untaken() > 1 &&
        (BesideCaller ? should_split_beside_caller() && ctx->add_helper() : should_split())) {
      co_await fj::fork(chain_part<Ctx, BesideCaller>, ctx);
      continue;
    }
    if (!ctx->take(s)) break;
    ctx->run(s);
  }
  co_await fj::join;
}

// The chain from ordinary code: the caller takes steps itself beside a root that lets up to P - 1 of the
// pool's workers join in; if no worker took the root by the time the steps ran out, the caller takes it
// back (finish_shared). On a pool of one worker the caller runs it all: the worker could only take its
// place.
template <scheduler Pool, class Ctx>
void chain_on(Pool& pool, Ctx& ctx) {
  std::size_t const workers = pool.core().size();
  if (workers == 1) {
    ctx.run_all();
    return;
  }
  ctx.most_helpers = workers - 1;
  // relaxed: before the root starts; its submission publishes the context. The root is the first helper.
  ctx.helpers.store(1, std::memory_order_relaxed);  // model: none (a count)
  started_root<void> root;
  root.start(pool.core(), chain_part<Ctx, true>, &ctx);
  std::exception_ptr mine;
  try {
    ctx.run_all();
  } catch (...) {
    mine = std::current_exception();  // run() has set the stop flag
  }
  finish_shared(pool.core(), root, mine);
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
    // The rest would be a single step, scanned on the pool after a wake-up: cheaper here, in one pass.
    scan_block(first, d_first, done, n, carry, op, inclusive);
    return n;
  }
  scan_block(first, d_first, 0, n, carry, op, inclusive);
  return n;
}

// Cuts [done, n) into the chain's chunks and steps, and chooses how a step runs. A step is about
// chain_least_steps-th of the rest, at most chain_step_bytes of input and output and at least scan_min_chunk
// elements if that allows (or the grain, for fj::grain). Its chunks are the step itself, except with
// fj::fixed_grain: then the chunks have the grain's size (the carries depend on nothing else), as many to a
// step as fit in that length.
template <class Ctx>
void plan_chunks(Ctx& ctx, std::size_t done, std::size_t n, partition p) {
  using T = typename Ctx::acc_type;
  using Out = typename Ctx::out_iterator;
  std::size_t const bytes =
      sizeof(std::iter_value_t<typename Ctx::in_iterator>) + sizeof(std::iter_value_t<Out>);
  std::size_t const most = std::max<std::size_t>(1, chain_step_bytes / bytes);
  std::size_t const rest = n - done;
  std::size_t const least = p.how() == partition::kind::grain ? p.size() : std::min(scan_min_chunk, most);
  std::size_t const step =
      std::max(least, std::min(most, (rest + chain_least_steps - 1) / chain_least_steps));
  bool const fixed = p.how() == partition::kind::fixed;
  ctx.lo = done;
  ctx.n = n;
  ctx.chunk = fixed ? p.size() : step;
  ctx.chunks = (rest + ctx.chunk - 1) / ctx.chunk;
  ctx.per_step = fixed ? std::max<std::size_t>(1, step / p.size()) : 1;
  ctx.steps = (ctx.chunks + ctx.per_step - 1) / ctx.per_step;
  ctx.scans_first = scans_then_adds<Out, T> && n >= scan_first_bytes / bytes;
  ctx.look = fixed ? 0 : std::max<std::size_t>(1, chain_look_bytes / bytes);
  ctx.stream = !fixed && streams(ctx.first, ctx.d_first, n);
}

}  // namespace fj::detail::algo
