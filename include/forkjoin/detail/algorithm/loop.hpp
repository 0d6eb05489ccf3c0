#pragma once
// The two engines behind the element-wise algorithms (for_each, transform, reduce, count_if, the passes of a
// scan): a loop that runs body(lo, hi) over index blocks, and a fold that also combines the blocks' results
// in index order. Each splits in one of the ways fj::partition names (partition.hpp): lazily (split the rest
// of a piece only when this worker has nothing a thief could take) or in a fixed balanced tree.
//
// An exception from a called child surfaces at the caller's next join, not at the co_await fj::call
// (docs/api.md, "What the runtime guarantees"): every call in these files is followed by a join before its
// result is used.
//
// A context (the Ctx parameters) lives in the frame or on the stack of whoever started the algorithm, and the
// tasks here get a pointer to it: strict fork-join means every task is joined before that frame ends.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "forkjoin/default_pool.hpp"
#include "forkjoin/detail/algorithm/partition.hpp"
#include "forkjoin/detail/cpu_relax.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/fork.hpp"
#include "forkjoin/join.hpp"
#include "forkjoin/resume_on.hpp"
#include "forkjoin/sync_wait.hpp"
#include "forkjoin/task.hpp"

namespace fj::detail::algo {

// Calling an algorithm with a pool from one of that pool's own workers would wait for itself: the same named
// error as fj::sync_wait's, before any work starts (also for inputs small enough to stay serial, so that the
// mistake does not depend on the input's size). Inside a task, use the fj::co:: forms.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_own_worker() {
  throw deadlock_error(
      "fj: a parallel algorithm was given the pool of the worker that calls it (this would deadlock); "
      "inside a task use co_await fj::call(fj::co::<algorithm>, ...)");
}
// The throw is out of line so that the test itself inlines into every call (it is on the small path).
template <scheduler Pool>
void check_not_own_worker(Pool& pool) {
  if (runs_on(pool)) [[unlikely]]
    throw_own_worker();
}

// The timed prefix's budget, and the pool to wake a worker of for the caller's next call when this one stays
// on the caller only because every worker sleeps (null inside a task, where the workers are awake).
struct entry_gate {
  std::uint64_t budget_ns;
  pool_core* asleep = nullptr;
};

// The gate of a call from ordinary code: a short budget when a worker is awake and idle to take the call
// without a wake-up (pool_core::has_idle_worker), the long one otherwise.
template <scheduler Pool>
entry_gate entry_budget(Pool& pool) {
  pool_core& core = pool.core();
  if (core.size() == 1) return {unlimited_ns};
  if (core.has_idle_worker()) return {enter_awake_pool_ns};
  return {enter_pool_ns, &core};
}

// Runs the automatic partition's timed prefix through `gate`: a call that looks longer than the short budget
// while every worker sleeps stays on the caller (the long budget) and wakes a worker for the next call
// (pool_core::wake_for_next_call).
template <class Block>
gate_result gated_prefix(std::size_t n, entry_gate gate, Block block) {
  auto const wish = [core = gate.asleep] {
    if (core != nullptr) core->wake_for_next_call();
  };
  return timed_prefix(n, gate.budget_ns, block, prefix_end::projected, no_prewake{},
                      gate.asleep != nullptr ? enter_awake_pool_ns : 0, wish);
}

// A scan's budget from ordinary code, awake workers or not: its parallel part reads some of the input twice,
// so a scan short enough for the awake budget is faster on the caller alone.
template <scheduler Pool>
std::uint64_t scan_entry_budget(Pool& pool) {
  return pool.core().size() == 1 ? unlimited_ns : enter_pool_ns;
}

// A scan's half-way call from ordinary code: wake a worker of a lazy pool ahead of the submission
// (pool_core::prewake; docs/algorithms.md "Grain").
template <scheduler Pool>
struct pool_prewake {
  Pool* pool;
  void operator()() const noexcept { pool->core().prewake(); }
};

// ---- the loop: Ctx has `stop_flag stop`, `std::size_t block` and `void run(lo, hi)` ----

// Runs ctx->run over [lo, hi): one block at a time, and splits what is left in two whenever this worker's
// deque is empty (partition.hpp, should_split).
// BesideCaller: a piece of a call whose caller works on it too (should_split_beside_caller).
template <class Ctx, bool BesideCaller = false>
task<void> lazy_loop(Ctx* ctx, std::size_t lo, std::size_t hi) {
  while (lo < hi) {
    if (ctx->stop.stopped()) co_return;
    if (hi - lo > ctx->block && (BesideCaller ? should_split_beside_caller() : should_split())) {
      std::size_t const mid = lo + (hi - lo) / 2;
      co_await fj::fork(lazy_loop<Ctx, BesideCaller>, ctx, lo, mid);
      co_await fj::call(lazy_loop<Ctx, BesideCaller>, ctx, mid, hi);
      co_await fj::join;
      co_return;
    }
    std::size_t const end = lo + std::min(ctx->block, hi - lo);
    ctx->run(lo, end);
    lo = end;
  }
}

// Runs ctx->run over [lo, hi) in leaves of at most ctx->block elements, halving until then.
template <class Ctx>
task<void> fixed_loop(Ctx* ctx, std::size_t lo, std::size_t hi) {
  if (hi - lo <= ctx->block) {
    if (!ctx->stop.stopped()) ctx->run(lo, hi);
    co_return;
  }
  std::size_t const mid = lo + (hi - lo) / 2;
  co_await fj::fork(fixed_loop<Ctx>, ctx, lo, mid);
  co_await fj::call(fixed_loop<Ctx>, ctx, mid, hi);
  co_await fj::join;
}

// How a loop over n elements starts, for either caller: what runs serially first, and what is left.
struct loop_start {
  std::size_t done;  // [0, done) already ran on the caller
  bool fixed;        // the rest goes to fixed_loop, else to lazy_loop
};

template <class Ctx>
loop_start start_loop(Ctx& ctx, std::size_t n, partition p, entry_gate gate) {
  switch (p.how()) {
    case partition::kind::fixed:
    case partition::kind::grain:
      ctx.block = p.size();
      if (n <= ctx.block) {
        ctx.run(0, n);
        return {n, false};
      }
      return {0, p.how() == partition::kind::fixed};
    case partition::kind::automatic: break;
  }
  if (n < serial_cutoff || gate.budget_ns == unlimited_ns) {
    ctx.run(0, n);
    return {n, false};
  }
  gate_result const g = gated_prefix(n, gate, [&](std::size_t lo, std::size_t hi) { ctx.run(lo, hi); });
  ctx.block = g.block;
  if (n - g.done <= g.block) {
    // What is left would be a single block on the pool, run after a wake-up: cheaper here.
    ctx.run(g.done, n);
    return {n, false};
  }
  return {g.done, false};
}

// ---- from ordinary code: the caller block by block from the left, the pool in shares ----
//
// After the timed prefix the caller does not wait idle for the pool: it submits a root that takes shares of
// what is left (a fold's from the RIGHT, a loop's from the left), again and again, and itself goes on taking
// blocks from the LEFT until nothing is left (docs/algorithms.md "Entering the pool"). The caller is busy
// while the pool's workers wake, and when it runs out of blocks it takes the rest of the pool's last share
// from its other end, then polls for the pool's end before it blocks.

// What neither end has taken of the rest after the prefix, in blocks: [left, right) in one atomic word (left
// in the low half), so that one compare-exchange takes from either end and the ends never cross.
class shared_ends {
 public:
  static constexpr std::uint64_t half_max = std::numeric_limits<std::uint32_t>::max();

  // `blocks` at most half_max.
  explicit shared_ends(std::uint64_t blocks) noexcept : word_(blocks << 32) {}

  // Makes the word hold [first, last) anew. Only once it is empty: nobody's compare-exchange can then succeed
  // on the value it replaces (each checks for blocks left first), and one that read an older value fails,
  // since the shares held one after another never overlap (no value with blocks left comes back).
  void hold(std::size_t first, std::size_t last) noexcept {
    // relaxed: as in take_left; the word only decides who owns which block.
    word_.store((static_cast<std::uint64_t>(last) << 32) | first,
                std::memory_order_relaxed);  // model: ends.hold
  }

  // How many blocks are left: a hint, stale as soon as read.
  [[nodiscard]] std::uint64_t left() const noexcept {
    std::uint64_t const w = word_.load(std::memory_order_relaxed);  // model: none (a hint)
    std::uint64_t const l = w & half_max;
    std::uint64_t const r = w >> 32;
    return r > l ? r - l : 0;
  }

  // The leftmost block, now the caller's; false once the ends have met.
  bool take_left(std::size_t& block) noexcept {
    // relaxed: the word only decides who owns which block (each compare-exchange is an RMW, so every block
    // is taken once); nothing is published through it. What the pool's end computed reaches the caller
    // through the root's completion (root_base::complete, release; wait or finished, acquire).
    std::uint64_t w = word_.load(std::memory_order_relaxed);  // model: ends.take_left.load
    while (true) {
      std::uint64_t const left = w & half_max;
      if (left >= (w >> 32)) return false;
      // relaxed (both orders): as above.
      if (word_.compare_exchange_weak(w, w + 1, std::memory_order_relaxed,
                                      std::memory_order_relaxed)) {  // model: ends.take_left.cas
        block = static_cast<std::size_t>(left);
        return true;
      }
    }
  }

  // The rightmost block; false once the ends have met.
  bool take_right_block(std::size_t& block) noexcept {
    std::size_t last = 0;
    return take_share(block, last, half_max, false);
  }

  // A fold's pool share of the blocks left: the rightmost 1 / divisor of them (rounded up, so at least one):
  // [first, last). Each such share lies just left of the one before, so the pool's end combines them in
  // index order. False once the ends have met.
  bool take_right(std::size_t& first, std::size_t& last, std::uint64_t divisor) noexcept {
    return take_share(first, last, divisor, false);
  }

  // A loop's pool share: the leftmost 1 / divisor of the blocks left (rounded up): [first, last), taken from
  // where the caller takes its blocks, so that both ends run in index order. A loop combines nothing, and a
  // search (find_if) then finds an early match without the pool scanning far beyond it. False once the ends
  // have met.
  bool take_left_share(std::size_t& first, std::size_t& last, std::uint64_t divisor) noexcept {
    return take_share(first, last, divisor, true);
  }

 private:
  // Moves one end by ceil(blocks left / divisor) in one compare-exchange: the share is computed from the
  // value that the compare-exchange installs over, so the ends never cross.
  bool take_share(std::size_t& first, std::size_t& last, std::uint64_t divisor, bool from_left) noexcept {
    // relaxed: as in take_left.
    std::uint64_t w = word_.load(std::memory_order_relaxed);  // model: ends.take_share.load
    while (true) {
      std::uint64_t const left = w & half_max;
      std::uint64_t const right = w >> 32;
      if (left >= right) return false;
      std::uint64_t const share = (right - left + divisor - 1) / divisor;
      std::uint64_t const new_left = from_left ? left + share : left;
      std::uint64_t const new_right = from_left ? right : right - share;
      // relaxed (both orders): as in take_left.
      if (word_.compare_exchange_weak(w, (new_right << 32) | new_left, std::memory_order_relaxed,
                                      std::memory_order_relaxed)) {  // model: ends.take_share.cas
        first = static_cast<std::size_t>(from_left ? left : new_right);
        last = static_cast<std::size_t>(from_left ? new_left : right);
        return true;
      }
    }
  }

  std::atomic<std::uint64_t> word_;
};

// A loop or fold shared between the caller and a root on the pool; it lives on the caller's stack, which
// outlives the root (the caller waits for it). Block b is [lo + b * block, min(lo + (b + 1) * block, n)).
template <class Ctx>
struct shared_range {
  Ctx* ctx;
  std::size_t lo;
  std::size_t n;
  // The caller takes a block from `ends` and the worker running a loop's share a block from `share`: each on
  // a pair of lines of its own (the adjacent-line prefetcher fetches pairs), so that neither invalidates the
  // other's line at every block.
  alignas(128) shared_ends ends;
  // The pool's end's current share, which the worker running it takes from the left and the caller, once
  // `ends` has met, from the right (share_loop, share_fold, caller_end). Empty until the first share.
  alignas(128) shared_ends share{0};

  shared_range(Ctx* c, std::size_t from, std::size_t to)
      : ctx(c), lo(from), n(to), ends(blocks(c->block, from, to)) {}

  [[nodiscard]] static std::uint64_t blocks(std::size_t block, std::size_t from, std::size_t to) noexcept {
    return (static_cast<std::uint64_t>(to - from) + block - 1) / block;
  }
  [[nodiscard]] std::size_t begin_of(std::size_t b) const noexcept { return lo + b * ctx->block; }
  [[nodiscard]] std::size_t end_of(std::size_t b) const noexcept {
    return std::min(n, lo + (b + 1) * ctx->block);
  }
};

// Whether [from, to) can be shared (its blocks fit half the word); otherwise the pool runs it all.
[[nodiscard]] inline bool fits_shared(std::size_t block, std::size_t from, std::size_t to) noexcept {
  return (to - from) / block < shared_ends::half_max;
}

// The pool's end of a shared loop on its current share (s->share): one block at a time from the share's left,
// so that the caller, once it has no blocks of its own, takes the share's blocks from the right instead of
// waiting for this worker to finish them (caller_end). While another worker may join, the left half of what
// is left goes to a forked, lazily split piece for it and the rest to a called share_loop (the caller is the
// P-th thread), so that no block runs between a fork and its join.
template <class Ctx>
task<void> share_loop(shared_range<Ctx>* s) {
  Ctx* const ctx = s->ctx;
  while (!ctx->stop.stopped()) {
    std::size_t first = 0;
    std::size_t last = 0;
    if (s->share.left() > 1 && should_split_beside_caller() && s->share.take_left_share(first, last, 2)) {
      co_await fj::fork(lazy_loop<Ctx, true>, ctx, s->begin_of(first), s->end_of(last - 1));
      co_await fj::call(share_loop<Ctx>, s);
      co_await fj::join;
      co_return;
    }
    std::size_t b = 0;
    if (!s->share.take_left(b)) co_return;
    ctx->run(s->begin_of(b), s->end_of(b));
  }
}

// The pool's end of a shared loop: takes shares from the left, beside the caller (take_left_share,
// pool_share_divisor), until the ends meet, each run by share_loop. Both ends then run in index order: a
// search that matched leaves the rest of the range for the caller to skip, and the caller takes what is left
// of the worker's share up to the match.
template <class Ctx>
task<void> pool_end_loop(shared_range<Ctx>* s) {
  std::size_t first = 0;
  std::size_t last = 0;
  while (!s->ctx->stop.stopped() && s->ends.take_left_share(first, last, pool_share_divisor())) {
    s->share.hold(first, last);
    co_await fj::call(share_loop<Ctx>, s);
    co_await fj::join;
  }
}

// The time the caller polls for the pool's end before it blocks: when both ends keep pace, the pool's workers
// are each finishing a block when the caller runs out, and a blocked caller is woken through the kernel.
inline constexpr std::uint64_t exit_spin_ns = 2 * target_block_ns;

// After the caller's last block: the pool's end's result. If no worker has taken the root yet (the workers
// are still waking, or busy), the caller has run every block itself: it takes the root back instead of
// waiting for a worker to start it only to find nothing left, and the pool's part is T{} (nothing).
// Otherwise it waits for the root, polling for up to exit_spin_ns (after the last block it helped with)
// before it blocks. `help` runs one block of the pool's end's work on the caller and returns true, or finds
// none and returns false. `mine` is the caller's own exception, if its part threw: it wins, and the pool's is
// counted as dropped.
template <class T, class Help>
T finish_shared(pool_core& core, started_root<T>& root, const std::exception_ptr& mine, Help help) {
  if (root.withdraw(core)) {
    if (mine) std::rethrow_exception(mine);
    if constexpr (std::is_void_v<T>) {
      return;
    } else {
      return T{};
    }
  }
  using clock = std::chrono::steady_clock;
  auto until = clock::now() + std::chrono::nanoseconds(exit_spin_ns);
  for (unsigned i = 1; !root.finished(); ++i) {
    if (help()) {
      until = clock::now() + std::chrono::nanoseconds(exit_spin_ns);
      continue;
    }
    cpu_relax();
    if (i % 32 == 0 && clock::now() >= until) break;
  }
  if (mine) {
    try {
      (void)root.wait();
    } catch (...) {
      core.count_dropped_exception();
    }
    std::rethrow_exception(mine);
  }
  return root.wait();
}

template <class T>
T finish_shared(pool_core& core, started_root<T>& root, const std::exception_ptr& mine) {
  return finish_shared(core, root, mine, [] { return false; });
}

// The caller's end of a shared loop or fold, once `root` (the pool's end) is started: runs
// block(lo, hi) on one block after another from the left until the ends meet or the call stops, then
// returns the pool's end's result (finish_shared). While it waits for that, it runs help_block(lo, hi) on
// blocks of the pool's end's current share, taken from the right (share_loop, share_fold).
template <class T, class Ctx, class Block, class HelpBlock>
T caller_end(pool_core& core, shared_range<Ctx>& s, started_root<T>& root, Block block,
             HelpBlock help_block) {
  std::exception_ptr mine;
  auto const stop_with = [&] {
    // The pool's end stops too (the contexts' run() does this already; a sort's need not).
    s.ctx->stop.stop();
    mine = std::current_exception();
  };
  try {
    std::size_t b = 0;
    while (!s.ctx->stop.stopped() && s.ends.take_left(b)) block(s.begin_of(b), s.end_of(b));
  } catch (...) {
    stop_with();
  }
  auto const help = [&]() noexcept {
    std::size_t b = 0;
    if (mine || s.ctx->stop.stopped() || !s.share.take_right_block(b)) return false;
    try {
      help_block(s.begin_of(b), s.end_of(b));
    } catch (...) {
      stop_with();
      return false;
    }
    return true;
  };
  return finish_shared(core, root, mine, help);
}

// [from, n) shared between the caller and the pool (from ordinary code, automatic partition).
template <scheduler Pool, class Ctx>
void loop_shared(Pool& pool, Ctx& ctx, std::size_t from, std::size_t n) {
  shared_range<Ctx> s(&ctx, from, n);
  started_root<void> root;
  root.start(pool.core(), pool_end_loop<Ctx>, &s);
  auto const run = [&](std::size_t lo, std::size_t hi) { ctx.run(lo, hi); };
  caller_end(pool.core(), s, root, run, run);
}

// From ordinary code: the serial part here, the rest as a root on `pool`.
template <scheduler Pool, class Ctx>
void loop_on(Pool& pool, Ctx& ctx, std::size_t n, partition p) {
  check_not_own_worker(pool);
  if (runs_serially(n, p)) {
    ctx.run(0, n);
    return;
  }
  loop_start const s = start_loop(ctx, n, p, entry_budget(pool));
  if (s.done == n || ctx.stop.stopped()) return;  // stopped: a search already found its answer
  if (s.fixed) {
    fj::sync_wait(pool, fixed_loop<Ctx>, &ctx, s.done, n);
  } else if (p.how() == partition::kind::automatic && fits_shared(ctx.block, s.done, n)) {
    loop_shared(pool, ctx, s.done, n);
  } else {
    fj::sync_wait(pool, lazy_loop<Ctx>, &ctx, s.done, n);
  }
}

// Inside a task: the serial part, then the rest as a called child.
template <class Ctx>
task<void> loop_in_task(Ctx* ctx, std::size_t n, partition p) {
  loop_start const s = start_loop(*ctx, n, p, entry_gate{in_task_gate_ns});
  if (s.done == n || ctx->stop.stopped()) co_return;  // stopped: a search already found its answer
  if (s.fixed) {
    co_await fj::call(fixed_loop<Ctx>, ctx, s.done, n);
    co_await fj::join;
  } else {
    co_await fj::call(lazy_loop<Ctx>, ctx, s.done, n);
    co_await fj::join;
  }
}

// ---- the fold: Ctx has `stop`, `block`, `using value_type = T`, `void fold(std::optional<T>&, lo, hi)`
// (folds the block into the accumulator, which is empty before the first block), `T combine(T, T)` and
// `bool beside_others` (set before the blocks that threads fold side by side: fold_run.hpp's one stream) ----

// Whether the blocks handed to the pool are folded by several threads at once: always for fj::fixed_grain,
// whose leaves must fold the same way at any worker count; otherwise when the pool has more than one worker.
[[nodiscard]] inline bool folds_beside_others(const pool_core& core, bool fixed) {
  return fixed || core.size() > 1;
}

// a then b, in index order; either may be empty (an empty range, or a piece stopped early).
template <class Ctx, class T>
std::optional<T> combine(Ctx* ctx, std::optional<T> a, std::optional<T> b) {
  if (!a) return b;
  if (!b) return a;
  return std::optional<T>(ctx->combine(std::move(*a), std::move(*b)));
}

template <class Ctx, bool BesideCaller = false>
task<std::optional<typename Ctx::value_type>> lazy_fold(Ctx* ctx, std::size_t lo, std::size_t hi) {
  using T = typename Ctx::value_type;
  std::optional<T> acc;
  while (lo < hi) {
    if (ctx->stop.stopped()) co_return acc;
    if (hi - lo > ctx->block && (BesideCaller ? should_split_beside_caller() : should_split())) {
      std::size_t const mid = lo + (hi - lo) / 2;
      std::optional<T> left;
      std::optional<T> right;
      co_await fj::fork(&left, lazy_fold<Ctx, BesideCaller>, ctx, lo, mid);
      co_await fj::call(&right, lazy_fold<Ctx, BesideCaller>, ctx, mid, hi);
      co_await fj::join;
      // [start, lo) then [lo, mid) then [mid, hi): the order is kept, so op need only be associative.
      co_return combine(ctx, combine(ctx, std::move(acc), std::move(left)), std::move(right));
    }
    std::size_t const end = lo + std::min(ctx->block, hi - lo);
    ctx->fold(acc, lo, end);
    lo = end;
  }
  co_return acc;
}

template <class Ctx>
task<std::optional<typename Ctx::value_type>> fixed_fold(Ctx* ctx, std::size_t lo, std::size_t hi) {
  using T = typename Ctx::value_type;
  if (hi - lo <= ctx->block) {
    std::optional<T> acc;
    if (!ctx->stop.stopped()) ctx->fold(acc, lo, hi);
    co_return acc;
  }
  std::size_t const mid = lo + (hi - lo) / 2;
  std::optional<T> left;
  std::optional<T> right;
  co_await fj::fork(&left, fixed_fold<Ctx>, ctx, lo, mid);
  co_await fj::call(&right, fixed_fold<Ctx>, ctx, mid, hi);
  co_await fj::join;
  co_return combine(ctx, std::move(left), std::move(right));
}

template <class T>
struct fold_start {
  std::optional<T> prefix;  // the fold of [0, done)
  std::size_t done;
  bool fixed;
};

template <class Ctx>
fold_start<typename Ctx::value_type> start_fold(Ctx& ctx, std::size_t n, partition p, entry_gate gate) {
  using T = typename Ctx::value_type;
  fold_start<T> s{std::nullopt, 0, false};
  switch (p.how()) {
    case partition::kind::fixed:
    case partition::kind::grain:
      ctx.block = p.size();
      s.fixed = p.how() == partition::kind::fixed;
      if (n <= ctx.block) {
        if (n != 0) ctx.fold(s.prefix, 0, n);
        s.done = n;
      }
      return s;
    case partition::kind::automatic: break;
  }
  if (n < serial_cutoff || gate.budget_ns == unlimited_ns) {
    if (n != 0) ctx.fold(s.prefix, 0, n);
    s.done = n;
    return s;
  }
  gate_result const g =
      gated_prefix(n, gate, [&](std::size_t lo, std::size_t hi) { ctx.fold(s.prefix, lo, hi); });
  ctx.block = g.block;
  s.done = g.done;
  if (n - g.done <= g.block) {
    ctx.fold(s.prefix, g.done, n);  // a single block left: as in start_loop
    s.done = n;
  }
  return s;
}

// A fold's pool end on its current share (s->share): blocks from the share's left, folded in index order.
// While another worker may join, the left half of what is left goes to a forked, lazily split piece and the
// rest to a called share_fold. What it folds is always a prefix of the share: the caller, once it has no
// blocks of its own, takes the share's blocks from the right (caller_end).
template <class Ctx>
task<std::optional<typename Ctx::value_type>> share_fold(shared_range<Ctx>* s) {
  using T = typename Ctx::value_type;
  Ctx* const ctx = s->ctx;
  std::optional<T> acc;
  while (!ctx->stop.stopped()) {
    std::size_t first = 0;
    std::size_t last = 0;
    if (s->share.left() > 1 && should_split_beside_caller() && s->share.take_left_share(first, last, 2)) {
      std::optional<T> left;
      std::optional<T> right;
      co_await fj::fork(&left, lazy_fold<Ctx, true>, ctx, s->begin_of(first), s->end_of(last - 1));
      co_await fj::call(&right, share_fold<Ctx>, s);
      co_await fj::join;
      co_return combine(ctx, combine(ctx, std::move(acc), std::move(left)), std::move(right));
    }
    std::size_t b = 0;
    if (!s->share.take_left(b)) break;
    ctx->fold(acc, s->begin_of(b), s->end_of(b));
  }
  co_return acc;
}

// What a fold's pool end folded: its part of its last share, and its shares before that, which lie to the
// right of the last (each share lies just left of the one before). The blocks the caller took of the last
// share lie between the two.
template <class T>
struct pool_fold_part {
  std::optional<T> last;
  std::optional<T> right;
};

// The pool's end of a shared fold: takes shares from the right (take_right, pool_share_divisor) until the
// ends meet, each run by share_fold.
template <class Ctx>
task<pool_fold_part<typename Ctx::value_type>> pool_end_fold(shared_range<Ctx>* s) {
  using T = typename Ctx::value_type;
  pool_fold_part<T> out;
  std::size_t first = 0;
  std::size_t last = 0;
  while (!s->ctx->stop.stopped() && s->ends.take_right(first, last, pool_share_divisor())) {
    s->share.hold(first, last);
    out.right = combine(s->ctx, std::exchange(out.last, std::nullopt), std::move(out.right));
    co_await fj::call(&out.last, share_fold<Ctx>, s);
    co_await fj::join;
  }
  co_return out;
}

// [from, n) folded by the caller and the pool, after `prefix` (the fold of [0, from)).
template <scheduler Pool, class Ctx>
std::optional<typename Ctx::value_type> fold_shared(Pool& pool, Ctx& ctx,
                                                    std::optional<typename Ctx::value_type> prefix,
                                                    std::size_t from, std::size_t n) {
  using T = typename Ctx::value_type;
  shared_range<Ctx> s(&ctx, from, n);
  started_root<pool_fold_part<T>> root;
  root.start(pool.core(), pool_end_fold<Ctx>, &s);
  // The caller's blocks of the pool's last share come from the right, so each goes in front of the others.
  std::optional<T> helped;
  pool_fold_part<T> pool_part = caller_end(
      pool.core(), s, root, [&](std::size_t lo, std::size_t hi) { ctx.fold(prefix, lo, hi); },
      [&](std::size_t lo, std::size_t hi) {
        std::optional<T> block;
        ctx.fold(block, lo, hi);
        helped = combine(&ctx, std::move(block), std::move(helped));
      });
  std::optional<T> mine = combine(&ctx, std::move(prefix), std::move(pool_part.last));
  return combine(&ctx, combine(&ctx, std::move(mine), std::move(helped)), std::move(pool_part.right));
}

// The fold of [0, n) (empty for n == 0), from ordinary code.
template <scheduler Pool, class Ctx>
std::optional<typename Ctx::value_type> fold_on(Pool& pool, Ctx& ctx, std::size_t n, partition p) {
  check_not_own_worker(pool);
  if (runs_serially(n, p)) {
    std::optional<typename Ctx::value_type> acc;
    if (n != 0) ctx.fold(acc, 0, n);
    return acc;
  }
  auto s = start_fold(ctx, n, p, entry_budget(pool));
  if (s.done == n) return std::move(s.prefix);
  ctx.beside_others = folds_beside_others(pool.core(), s.fixed);
  if (p.how() == partition::kind::automatic && fits_shared(ctx.block, s.done, n)) {
    return fold_shared(pool, ctx, std::move(s.prefix), s.done, n);
  }
  auto rest = s.fixed ? fj::sync_wait(pool, fixed_fold<Ctx>, &ctx, s.done, n)
                      : fj::sync_wait(pool, lazy_fold<Ctx>, &ctx, s.done, n);
  return combine(&ctx, std::move(s.prefix), std::move(rest));
}

template <class Ctx>
task<std::optional<typename Ctx::value_type>> fold_in_task(Ctx* ctx, std::size_t n, partition p) {
  auto s = start_fold(*ctx, n, p, entry_gate{in_task_gate_ns});
  if (s.done == n) co_return std::move(s.prefix);
  ctx->beside_others = folds_beside_others(*tls_worker->pool, s.fixed);
  std::optional<typename Ctx::value_type> rest;
  if (s.fixed) {
    co_await fj::call(&rest, fixed_fold<Ctx>, ctx, s.done, n);
    co_await fj::join;
  } else {
    co_await fj::call(&rest, lazy_fold<Ctx>, ctx, s.done, n);
    co_await fj::join;
  }
  co_return combine(ctx, std::move(s.prefix), std::move(rest));
}

// Runs fn(args...) and, if it throws, stops the rest of the algorithm before the exception travels on.
template <class Fn>
decltype(auto) stopping_on_throw(stop_flag& stop, Fn&& fn) {
  try {
    return std::forward<Fn>(fn)();
  } catch (...) {
    stop.stop();
    throw;
  }
}

}  // namespace fj::detail::algo
