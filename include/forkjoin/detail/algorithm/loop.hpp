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

#include <cstddef>
#include <exception>
#include <optional>
#include <utility>

#include "forkjoin/default_pool.hpp"
#include "forkjoin/detail/algorithm/partition.hpp"
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

// The timed prefix's budget for a call from ordinary code.
template <scheduler Pool>
std::uint64_t entry_budget(Pool& pool) {
  return pool.core().size() == 1 ? unlimited_ns : enter_pool_ns;
}

// The timed prefix's half-way call from ordinary code: wake a worker of a lazy pool ahead of the submission
// (pool_core::prewake; docs/algorithms.md "Grain").
template <scheduler Pool>
struct pool_prewake {
  Pool* pool;
  void operator()() const noexcept { pool->core().prewake(); }
};

// ---- the loop: Ctx has `stop_flag stop`, `std::size_t block` and `void run(lo, hi)` ----

// Runs ctx->run over [lo, hi): one block at a time, and splits what is left in two whenever this worker's
// deque is empty (partition.hpp, should_split).
template <class Ctx>
task<void> lazy_loop(Ctx* ctx, std::size_t lo, std::size_t hi) {
  while (lo < hi) {
    if (ctx->stop.stopped()) co_return;
    if (hi - lo > ctx->block && should_split()) {
      std::size_t const mid = lo + (hi - lo) / 2;
      co_await fj::fork(lazy_loop<Ctx>, ctx, lo, mid);
      co_await fj::call(lazy_loop<Ctx>, ctx, mid, hi);
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

template <class Ctx, class Half = no_prewake>
loop_start start_loop(Ctx& ctx, std::size_t n, partition p, std::uint64_t budget_ns, Half half = {}) {
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
  if (n < serial_cutoff || budget_ns == unlimited_ns) {
    ctx.run(0, n);
    return {n, false};
  }
  gate_result const g =
      timed_prefix(n, budget_ns, [&](std::size_t lo, std::size_t hi) { ctx.run(lo, hi); }, half);
  ctx.block = g.block;
  if (n - g.done <= g.block) {
    // What is left would be a single block on the pool, run after a wake-up: cheaper here.
    ctx.run(g.done, n);
    return {n, false};
  }
  return {g.done, false};
}

// From ordinary code: the serial part here, the rest as a root on `pool`.
template <scheduler Pool, class Ctx>
void loop_on(Pool& pool, Ctx& ctx, std::size_t n, partition p) {
  check_not_own_worker(pool);
  if (runs_serially(n, p)) {
    ctx.run(0, n);
    return;
  }
  loop_start const s = start_loop(ctx, n, p, entry_budget(pool), pool_prewake<Pool>{&pool});
  if (s.done == n || ctx.stop.stopped()) return;  // stopped: a search already found its answer
  if (s.fixed) {
    fj::sync_wait(pool, fixed_loop<Ctx>, &ctx, s.done, n);
  } else {
    fj::sync_wait(pool, lazy_loop<Ctx>, &ctx, s.done, n);
  }
}

// Inside a task: the serial part, then the rest as a called child.
template <class Ctx>
task<void> loop_in_task(Ctx* ctx, std::size_t n, partition p) {
  loop_start const s = start_loop(*ctx, n, p, in_task_gate_ns);
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
// (folds the block into the accumulator, which is empty before the first block) and `T combine(T, T)` ----

// a then b, in index order; either may be empty (an empty range, or a piece stopped early).
template <class Ctx, class T>
std::optional<T> combine(Ctx* ctx, std::optional<T> a, std::optional<T> b) {
  if (!a) return b;
  if (!b) return a;
  return std::optional<T>(ctx->combine(std::move(*a), std::move(*b)));
}

template <class Ctx>
task<std::optional<typename Ctx::value_type>> lazy_fold(Ctx* ctx, std::size_t lo, std::size_t hi) {
  using T = typename Ctx::value_type;
  std::optional<T> acc;
  while (lo < hi) {
    if (ctx->stop.stopped()) co_return acc;
    if (hi - lo > ctx->block && should_split()) {
      std::size_t const mid = lo + (hi - lo) / 2;
      std::optional<T> left;
      std::optional<T> right;
      co_await fj::fork(&left, lazy_fold<Ctx>, ctx, lo, mid);
      co_await fj::call(&right, lazy_fold<Ctx>, ctx, mid, hi);
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

template <class Ctx, class Half = no_prewake>
fold_start<typename Ctx::value_type> start_fold(Ctx& ctx, std::size_t n, partition p, std::uint64_t budget_ns,
                                                Half half = {}) {
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
  if (n < serial_cutoff || budget_ns == unlimited_ns) {
    if (n != 0) ctx.fold(s.prefix, 0, n);
    s.done = n;
    return s;
  }
  gate_result const g =
      timed_prefix(n, budget_ns, [&](std::size_t lo, std::size_t hi) { ctx.fold(s.prefix, lo, hi); }, half);
  ctx.block = g.block;
  s.done = g.done;
  if (n - g.done <= g.block) {
    ctx.fold(s.prefix, g.done, n);  // a single block left: as in start_loop
    s.done = n;
  }
  return s;
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
  auto s = start_fold(ctx, n, p, entry_budget(pool), pool_prewake<Pool>{&pool});
  if (s.done == n) return std::move(s.prefix);
  auto rest = s.fixed ? fj::sync_wait(pool, fixed_fold<Ctx>, &ctx, s.done, n)
                      : fj::sync_wait(pool, lazy_fold<Ctx>, &ctx, s.done, n);
  return combine(&ctx, std::move(s.prefix), std::move(rest));
}

template <class Ctx>
task<std::optional<typename Ctx::value_type>> fold_in_task(Ctx* ctx, std::size_t n, partition p) {
  auto s = start_fold(*ctx, n, p, in_task_gate_ns);
  if (s.done == n) co_return std::move(s.prefix);
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
