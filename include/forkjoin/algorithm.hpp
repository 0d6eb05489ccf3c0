#pragma once
// Parallel algorithms on forkjoin's scheduler: the standard algorithms with a pool where the execution policy
// goes. docs/algorithms.md describes each one (grain, exceptions, determinism, bad input, complexity).
//
//   fj::sort(pool, v.begin(), v.end());                      // from ordinary code: blocks, then returns
//   long s = fj::reduce(pool, v, 0L, std::plus<>{});         // std::ranges random-access ranges too
//   fj::for_each(v.begin(), v.end(), f);                     // no pool: fj::default_pool()
//   co_await fj::call(&s, fj::co::reduce, first, last, 0L, std::plus<>{});  // inside a task
//
// Every algorithm takes random-access iterators (not only contiguous ones) and, last, an optional
// fj::partition: fj::grain(n) or fj::fixed_grain(n) (the default splits automatically). The forms with a
// pool throw fj::deadlock_error when called from a worker of that pool: inside a task, co_await fj::call on
// the fj::co:: function objects, which run on the calling task's pool. Exceptions thrown by element
// functions reach the caller (the first one; the rest are counted in pool.stats() as the runtime counts
// them) and stop the remaining work early.

#include <concepts>
#include <cstddef>
#include <functional>
#include <iterator>
#include <optional>
#include <ranges>
#include <type_traits>
#include <utility>

#include "forkjoin/default_pool.hpp"
#include "forkjoin/detail/algorithm/elementwise.hpp"
#include "forkjoin/detail/algorithm/loop.hpp"
#include "forkjoin/detail/algorithm/partition.hpp"
#include "forkjoin/detail/algorithm/scan.hpp"
#include "forkjoin/detail/algorithm/sort.hpp"
#include "forkjoin/fork.hpp"
#include "forkjoin/join.hpp"
#include "forkjoin/sync_wait.hpp"
#include "forkjoin/task.hpp"

namespace fj::detail::algo {

template <class X>
concept not_partition = !std::same_as<std::remove_cvref_t<X>, partition>;

template <class It>
struct range_bounds {
  It first;
  It last;
};

// The iterators of a range argument. The algorithms read the range only through them, while the call runs,
// so a temporary range (a std::span made in the call, a view) is fine and nothing is forwarded.
template <std::ranges::random_access_range R>
auto bounds(R&& r) {  // NOLINT(cppcoreguidelines-missing-std-forward): only its iterators are taken
  auto const first = std::ranges::begin(r);
  return range_bounds<decltype(first)>{first, first + std::ranges::distance(r)};
}

// ---- the bodies shared by the forms with a pool (Pool is a scheduler) and the task forms (Pool is
// in_task): each returns what the algorithm returns, or a task of it ----

struct in_task {};

template <scheduler Pool, class It, class T, class R, class U>
T transform_reduce_on(Pool& pool, It first, It last, T init, R& reduce, U& transform, partition p) {
  transform_reduce_ctx<It, T, R, U> ctx{{}, first, &reduce, &transform};
  std::optional<T> total = fold_on(pool, ctx, length(first, last), p);
  if (!total) return init;
  return std::invoke(reduce, std::move(init), std::move(*total));
}

template <class It, class T, class R, class U>
task<T> transform_reduce_in_task(It first, It last, T init, R reduce, U transform, partition p) {
  transform_reduce_ctx<It, T, R, U> ctx{{}, first, &reduce, &transform};
  std::size_t const n = length(first, last);
  std::optional<T> total;
  if (runs_serially(n, p)) {  // no child task for a small input
    if (n != 0) ctx.fold(total, 0, n);
  } else {
    co_await fj::call(&total, fold_in_task<decltype(ctx)>, &ctx, n, p);
    co_await fj::join;
  }
  if (!total) co_return init;
  co_return std::invoke(reduce, std::move(init), std::move(*total));
}

// The index of the first element of [first, last) that satisfies pred (any match in `any` mode), or n.
template <scheduler Pool, class It, class Pred>
std::size_t find_on(Pool& pool, It first, It last, Pred& pred, bool any, partition p) {
  std::size_t const n = length(first, last);
  find_ctx<It, Pred> ctx(first, &pred, any, n);
  loop_on(pool, ctx, n, p);
  return ctx.found.load(std::memory_order_relaxed);  // relaxed: the joins (or this thread) ordered the stores
}

template <class It, class Pred>
task<std::size_t> find_in_task(It first, It last, Pred pred, bool any, partition p) {
  std::size_t const n = length(first, last);
  find_ctx<It, Pred> ctx(first, &pred, any, n);
  if (runs_serially(n, p)) {  // no child task for a small input
    ctx.run(0, n);
  } else {
    co_await fj::call(loop_in_task<decltype(ctx)>, &ctx, n, p);
    co_await fj::join;
  }
  co_return ctx.found.load(std::memory_order_relaxed);  // relaxed: the call's join ordered the stores
}

template <class Pred>
struct negated {
  Pred* pred;
  template <class X>
  bool operator()(X&& x) const {
    return !static_cast<bool>(std::invoke(*pred, std::forward<X>(x)));
  }
};

template <class Pred>
struct as_count {
  Pred* pred;
  template <class X>
  std::ptrdiff_t operator()(X&& x) const {
    return static_cast<bool>(std::invoke(*pred, std::forward<X>(x))) ? 1 : 0;
  }
};

// A scan's common body. T is the accumulator type; `carry` is the initial value (empty for an inclusive
// scan without one). Returns the end of the output.
template <scheduler Pool, class It, class Out, class T, class Op>
Out scan_on(Pool& pool, It first, It last, Out d_first, std::optional<T> carry, Op& op, bool inclusive,
            partition p) {
  check_not_own_worker(pool);
  std::size_t const n = length(first, last);
  if (runs_serially(n, p)) {
    scan_block(first, d_first, 0, n, carry, op, inclusive);
    return at(d_first, n);
  }
  std::size_t const done = scan_start(first, d_first, n, carry, op, inclusive, p, scan_entry_budget(pool),
                                      pool_prewake<Pool>{&pool});
  if (done < n) {
    chain_ctx<It, Out, T, Op> ctx(first, d_first, &op, inclusive);
    plan_chunks(ctx, done, n, p);
    ctx.start(std::move(carry));
    chain_on(pool, ctx);
  }
  return at(d_first, n);
}

template <class It, class Out, class T, class Op>
task<Out> scan_in_task(It first, It last, Out d_first, std::optional<T> carry, Op op, bool inclusive,
                       partition p) {
  std::size_t const n = length(first, last);
  std::size_t const done = scan_start(first, d_first, n, carry, op, inclusive, p, in_task_gate_ns);
  if (done < n) {
    chain_ctx<It, Out, T, Op> ctx(first, d_first, &op, inclusive);
    // A local of a coroutine is only aligned as its frame is (chain_ctx::next).
    static_assert(alignof(decltype(ctx)) <= alignof(std::max_align_t));
    plan_chunks(ctx, done, n, p);
    ctx.start(std::move(carry));
    co_await fj::call(chain_part<decltype(ctx), false>, &ctx);
    co_await fj::join;
  }
  co_return at(d_first, n);
}

// A sort from ordinary code stays on the caller below the serial cutoff or on a pool of one worker (whose
// worker could only run what the caller can, after a wake-up).
template <scheduler Pool>
bool sorts_serially(Pool& pool, std::size_t n) {
  return n < sort_serial_cutoff || pool.core().size() == 1;
}

// Whether the range is sorted already: serially when the sort is serial, else as a loop on the pool, whose
// timed serial prefix finds the descent of an unsorted input.
template <scheduler Pool, class It, class Comp>
bool sorted_on(Pool& pool, It first, std::size_t n, Comp& comp, bool serial) {
  if (serial) return already_sorted(first, n, comp);
  sorted_ctx<It, Comp> ctx(first, &comp);
  loop_on(pool, ctx, n, partition{});
  return !ctx.descent.load(std::memory_order_relaxed);  // relaxed: the joins ordered the store
}

// The same inside a task; below the serial cutoff without a child task.
template <class It, class Comp>
task<bool> sorted_in_task(It first, std::size_t n, Comp* comp) {
  if (n < sort_serial_cutoff) co_return already_sorted(first, n, *comp);
  sorted_ctx<It, Comp> ctx(first, comp);
  co_await fj::call(loop_in_task<decltype(ctx)>, &ctx, n, partition{});
  co_await fj::join;
  co_return !ctx.descent.load(std::memory_order_relaxed);  // relaxed: the call's join ordered the store
}

template <scheduler Pool, class It, class Comp>
void sort_on(Pool& pool, It first, It last, Comp& comp) {
  check_not_own_worker(pool);
  std::size_t const n = length(first, last);
  bool const serial = sorts_serially(pool, n);
  if (sorted_on(pool, first, n, comp, serial)) return;
  if (serial) {
    serial_sort(first, at(first, n), comp, depth_limit(n));
    return;
  }
  sort_ctx<It, Comp> ctx{{}, &comp};
  fj::sync_wait(pool, parallel_sort<It, Comp>, &ctx, first, at(first, n), depth_limit(n));
}

template <class It, class Comp>
task<void> sort_in_task(It first, It last, Comp comp) {
  std::size_t const n = length(first, last);
  bool sorted = true;
  co_await fj::call(&sorted, sorted_in_task<It, Comp>, first, n, &comp);
  co_await fj::join;
  if (sorted) co_return;
  if (n < sort_leaf) {
    serial_sort(first, at(first, n), comp, depth_limit(n));
    co_return;
  }
  sort_ctx<It, Comp> ctx{{}, &comp};
  co_await fj::call(parallel_sort<It, Comp>, &ctx, first, at(first, n), depth_limit(n));
  co_await fj::join;
}

template <scheduler Pool, class It, class Comp>
void stable_sort_on(Pool& pool, It first, It last, Comp& comp) {
  check_not_own_worker(pool);
  std::size_t const n = length(first, last);
  bool const serial = sorts_serially(pool, n);
  if (sorted_on(pool, first, n, comp, serial)) return;
  if (n <= insertion_limit) {
    insertion_sort(first, at(first, n), comp);
    return;
  }
  merge_buffer<std::iter_value_t<It>> buffer(first, n);
  stop_flag stop;
  if (serial) {
    serial_stable_sort(first, buffer, n, comp);
    return;
  }
  fj::sync_wait(pool, stable_sort_task<It, Comp>, &stop, &comp, first, &buffer, n);
}

template <class It, class Comp>
task<void> stable_sort_in_task(It first, It last, Comp comp) {
  std::size_t const n = length(first, last);
  bool sorted = true;
  co_await fj::call(&sorted, sorted_in_task<It, Comp>, first, n, &comp);
  co_await fj::join;
  if (sorted) co_return;
  if (n <= insertion_limit) {
    insertion_sort(first, at(first, n), comp);
    co_return;
  }
  merge_buffer<std::iter_value_t<It>> buffer(first, n);
  stop_flag stop;
  co_await fj::call(stable_sort_task<It, Comp>, &stop, &comp, first, &buffer, n);
  co_await fj::join;
}

}  // namespace fj::detail::algo

namespace fj {

// ---------------------------------------------------------------------------------------------------------
// for_each: f(x) for every element x of [first, last).

template <scheduler Pool, std::random_access_iterator It, class F>
void for_each(Pool& pool, It first, It last, F f, partition p = {}) {
  detail::algo::for_each_ctx<It, F> ctx{{}, first, &f};
  detail::algo::loop_on(pool, ctx, detail::algo::length(first, last), p);
}
template <scheduler Pool, std::ranges::random_access_range R, class F>
void for_each(Pool& pool, R&& r, F f, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  fj::for_each(pool, b.first, b.last, std::move(f), p);
}
template <std::random_access_iterator It, class F>
void for_each(It first, It last, F f, partition p = {}) {
  fj::for_each(default_pool(), first, last, std::move(f), p);
}
template <std::ranges::random_access_range R, class F>
void for_each(R&& r, F f, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  fj::for_each(default_pool(), b.first, b.last, std::move(f), p);
}

// for_each_index: f(i) for every integer i of [first, last) (none when last <= first).

template <scheduler Pool, std::integral I, std::integral J, class F>
void for_each_index(Pool& pool, I first, J last, F f, partition p = {}) {
  using K = std::common_type_t<I, J>;
  detail::algo::for_each_index_ctx<K, F> ctx{{}, static_cast<K>(first), &f};
  detail::algo::loop_on(pool, ctx, detail::algo::index_count<K>(static_cast<K>(first), static_cast<K>(last)),
                        p);
}
template <std::integral I, std::integral J, class F>
void for_each_index(I first, J last, F f, partition p = {}) {
  fj::for_each_index(default_pool(), first, last, std::move(f), p);
}

// transform: *(d_first + i) = f(*(first + i)), or f(*(first1 + i), *(first2 + i)); returns the output's end.

template <scheduler Pool, std::random_access_iterator It, std::random_access_iterator Out, class F>
  requires detail::algo::not_partition<F>
Out transform(Pool& pool, It first, It last, Out d_first, F f, partition p = {}) {
  detail::algo::transform_ctx<It, Out, F> ctx{{}, first, d_first, &f};
  std::size_t const n = detail::algo::length(first, last);
  ctx.stream = detail::algo::streams(first, d_first, n);
  detail::algo::loop_on(pool, ctx, n, p);
  return detail::algo::at(d_first, n);
}
template <scheduler Pool, std::random_access_iterator It1, std::random_access_iterator It2,
          std::random_access_iterator Out, class F>
Out transform(Pool& pool, It1 first1, It1 last1, It2 first2, Out d_first, F f, partition p = {}) {
  detail::algo::transform2_ctx<It1, It2, Out, F> ctx{{}, first1, first2, d_first, &f};
  std::size_t const n = detail::algo::length(first1, last1);
  ctx.stream = detail::algo::streams(first1, d_first, n) && detail::algo::streams(first2, d_first, n);
  detail::algo::loop_on(pool, ctx, n, p);
  return detail::algo::at(d_first, n);
}
template <scheduler Pool, std::ranges::random_access_range R, std::random_access_iterator Out, class F>
Out transform(Pool& pool, R&& r, Out d_first, F f, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  return fj::transform(pool, b.first, b.last, d_first, std::move(f), p);
}
template <std::random_access_iterator It, std::random_access_iterator Out, class F>
  requires detail::algo::not_partition<F>
Out transform(It first, It last, Out d_first, F f, partition p = {}) {
  return fj::transform(default_pool(), first, last, d_first, std::move(f), p);
}
template <std::random_access_iterator It1, std::random_access_iterator It2, std::random_access_iterator Out,
          class F>
Out transform(It1 first1, It1 last1, It2 first2, Out d_first, F f, partition p = {}) {
  return fj::transform(default_pool(), first1, last1, first2, d_first, std::move(f), p);
}
template <std::ranges::random_access_range R, std::random_access_iterator Out, class F>
Out transform(R&& r, Out d_first, F f, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  return fj::transform(default_pool(), b.first, b.last, d_first, std::move(f), p);
}

// transform_reduce: init combined with transform(x) for every x, by `reduce`, which must be associative
// (it need not be commutative: the order of the elements is kept).

template <scheduler Pool, std::random_access_iterator It, class T, class R, class U>
T transform_reduce(Pool& pool, It first, It last, T init, R reduce, U transform, partition p = {}) {
  return detail::algo::transform_reduce_on(pool, first, last, std::move(init), reduce, transform, p);
}
template <scheduler Pool, std::ranges::random_access_range Rg, class T, class R, class U>
T transform_reduce(Pool& pool, Rg&& r, T init, R reduce, U transform, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<Rg>(r));
  return detail::algo::transform_reduce_on(pool, b.first, b.last, std::move(init), reduce, transform, p);
}
template <std::random_access_iterator It, class T, class R, class U>
T transform_reduce(It first, It last, T init, R reduce, U transform, partition p = {}) {
  return detail::algo::transform_reduce_on(default_pool(), first, last, std::move(init), reduce, transform,
                                           p);
}
template <std::ranges::random_access_range Rg, class T, class R, class U>
T transform_reduce(Rg&& r, T init, R reduce, U transform, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<Rg>(r));
  return detail::algo::transform_reduce_on(default_pool(), b.first, b.last, std::move(init), reduce,
                                           transform, p);
}

// reduce: init combined with every element by op (default std::plus<>; init defaults to a value-initialised
// element). To pass a partition, pass op as well.

template <scheduler Pool, std::random_access_iterator It,
          detail::algo::not_partition T = std::iter_value_t<It>, detail::algo::not_partition Op = std::plus<>>
T reduce(Pool& pool, It first, It last, T init = T{}, Op op = {}, partition p = {}) {
  std::identity id;
  return detail::algo::transform_reduce_on(pool, first, last, std::move(init), op, id, p);
}
template <scheduler Pool, std::ranges::random_access_range R,
          detail::algo::not_partition T = std::ranges::range_value_t<R>,
          detail::algo::not_partition Op = std::plus<>>
T reduce(Pool& pool, R&& r, T init = T{}, Op op = {}, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  return fj::reduce(pool, b.first, b.last, std::move(init), std::move(op), p);
}
template <std::random_access_iterator It, detail::algo::not_partition T = std::iter_value_t<It>,
          detail::algo::not_partition Op = std::plus<>>
T reduce(It first, It last, T init = T{}, Op op = {}, partition p = {}) {
  return fj::reduce(default_pool(), first, last, std::move(init), std::move(op), p);
}
template <std::ranges::random_access_range R, detail::algo::not_partition T = std::ranges::range_value_t<R>,
          detail::algo::not_partition Op = std::plus<>>
T reduce(R&& r, T init = T{}, Op op = {}, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  return fj::reduce(default_pool(), b.first, b.last, std::move(init), std::move(op), p);
}

// count_if: the number of elements that satisfy pred.

template <scheduler Pool, std::random_access_iterator It, class Pred>
std::iter_difference_t<It> count_if(Pool& pool, It first, It last, Pred pred, partition p = {}) {
  detail::algo::as_count<Pred> one{&pred};
  std::plus<> plus;
  return static_cast<std::iter_difference_t<It>>(
      detail::algo::transform_reduce_on(pool, first, last, std::ptrdiff_t{0}, plus, one, p));
}
template <scheduler Pool, std::ranges::random_access_range R, class Pred>
std::ranges::range_difference_t<R> count_if(Pool& pool, R&& r, Pred pred, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  return fj::count_if(pool, b.first, b.last, std::move(pred), p);
}
template <std::random_access_iterator It, class Pred>
std::iter_difference_t<It> count_if(It first, It last, Pred pred, partition p = {}) {
  return fj::count_if(default_pool(), first, last, std::move(pred), p);
}
template <std::ranges::random_access_range R, class Pred>
std::ranges::range_difference_t<R> count_if(R&& r, Pred pred, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  return fj::count_if(default_pool(), b.first, b.last, std::move(pred), p);
}

// find_if: the first element that satisfies pred, or last. Blocks after a match are not examined.
// any_of / all_of / none_of: stop the whole search at the first match (of !pred for all_of) found anywhere.

template <scheduler Pool, std::random_access_iterator It, class Pred>
It find_if(Pool& pool, It first, It last, Pred pred, partition p = {}) {
  return detail::algo::at(first, detail::algo::find_on(pool, first, last, pred, false, p));
}
template <scheduler Pool, std::random_access_iterator It, class Pred>
bool any_of(Pool& pool, It first, It last, Pred pred, partition p = {}) {
  return detail::algo::find_on(pool, first, last, pred, true, p) < detail::algo::length(first, last);
}
template <scheduler Pool, std::random_access_iterator It, class Pred>
bool none_of(Pool& pool, It first, It last, Pred pred, partition p = {}) {
  return !fj::any_of(pool, first, last, std::move(pred), p);
}
template <scheduler Pool, std::random_access_iterator It, class Pred>
bool all_of(Pool& pool, It first, It last, Pred pred, partition p = {}) {
  detail::algo::negated<Pred> no{&pred};
  return !fj::any_of(pool, first, last, no, p);
}
template <scheduler Pool, std::ranges::random_access_range R, class Pred>
auto find_if(Pool& pool, R&& r, Pred pred, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  return fj::find_if(pool, b.first, b.last, std::move(pred), p);
}
template <scheduler Pool, std::ranges::random_access_range R, class Pred>
bool any_of(Pool& pool, R&& r, Pred pred, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  return fj::any_of(pool, b.first, b.last, std::move(pred), p);
}
template <scheduler Pool, std::ranges::random_access_range R, class Pred>
bool none_of(Pool& pool, R&& r, Pred pred, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  return fj::none_of(pool, b.first, b.last, std::move(pred), p);
}
template <scheduler Pool, std::ranges::random_access_range R, class Pred>
bool all_of(Pool& pool, R&& r, Pred pred, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  return fj::all_of(pool, b.first, b.last, std::move(pred), p);
}
template <std::random_access_iterator It, class Pred>
It find_if(It first, It last, Pred pred, partition p = {}) {
  return fj::find_if(default_pool(), first, last, std::move(pred), p);
}
template <std::random_access_iterator It, class Pred>
bool any_of(It first, It last, Pred pred, partition p = {}) {
  return fj::any_of(default_pool(), first, last, std::move(pred), p);
}
template <std::random_access_iterator It, class Pred>
bool none_of(It first, It last, Pred pred, partition p = {}) {
  return fj::none_of(default_pool(), first, last, std::move(pred), p);
}
template <std::random_access_iterator It, class Pred>
bool all_of(It first, It last, Pred pred, partition p = {}) {
  return fj::all_of(default_pool(), first, last, std::move(pred), p);
}
template <std::ranges::random_access_range R, class Pred>
auto find_if(R&& r, Pred pred, partition p = {}) {
  return fj::find_if(default_pool(), std::forward<R>(r), std::move(pred), p);
}
template <std::ranges::random_access_range R, class Pred>
bool any_of(R&& r, Pred pred, partition p = {}) {
  return fj::any_of(default_pool(), std::forward<R>(r), std::move(pred), p);
}
template <std::ranges::random_access_range R, class Pred>
bool none_of(R&& r, Pred pred, partition p = {}) {
  return fj::none_of(default_pool(), std::forward<R>(r), std::move(pred), p);
}
template <std::ranges::random_access_range R, class Pred>
bool all_of(R&& r, Pred pred, partition p = {}) {
  return fj::all_of(default_pool(), std::forward<R>(r), std::move(pred), p);
}

// inclusive_scan: *(d_first + i) = x0 op x1 op ... op xi (init op x0 op ... with an init); exclusive_scan:
// init op x0 op ... op x(i-1). op must be associative. The output may be the input. Returns the output's end.

template <scheduler Pool, std::random_access_iterator It, std::random_access_iterator Out,
          detail::algo::not_partition Op = std::plus<>>
Out inclusive_scan(Pool& pool, It first, It last, Out d_first, Op op = {}, partition p = {}) {
  return detail::algo::scan_on(pool, first, last, d_first, std::optional<std::iter_value_t<It>>(), op, true,
                               p);
}
template <scheduler Pool, std::random_access_iterator It, std::random_access_iterator Out, class Op,
          detail::algo::not_partition T>
Out inclusive_scan(Pool& pool, It first, It last, Out d_first, Op op, T init, partition p = {}) {
  return detail::algo::scan_on(pool, first, last, d_first, std::optional<T>(std::move(init)), op, true, p);
}
template <scheduler Pool, std::random_access_iterator It, std::random_access_iterator Out, class T,
          detail::algo::not_partition Op = std::plus<>>
Out exclusive_scan(Pool& pool, It first, It last, Out d_first, T init, Op op = {}, partition p = {}) {
  return detail::algo::scan_on(pool, first, last, d_first, std::optional<T>(std::move(init)), op, false, p);
}
template <scheduler Pool, std::ranges::random_access_range R, std::random_access_iterator Out,
          detail::algo::not_partition Op = std::plus<>>
Out inclusive_scan(Pool& pool, R&& r, Out d_first, Op op = {}, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  return fj::inclusive_scan(pool, b.first, b.last, d_first, std::move(op), p);
}
template <scheduler Pool, std::ranges::random_access_range R, std::random_access_iterator Out, class T,
          detail::algo::not_partition Op = std::plus<>>
Out exclusive_scan(Pool& pool, R&& r, Out d_first, T init, Op op = {}, partition p = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  return fj::exclusive_scan(pool, b.first, b.last, d_first, std::move(init), std::move(op), p);
}
template <std::random_access_iterator It, std::random_access_iterator Out,
          detail::algo::not_partition Op = std::plus<>>
Out inclusive_scan(It first, It last, Out d_first, Op op = {}, partition p = {}) {
  return fj::inclusive_scan(default_pool(), first, last, d_first, std::move(op), p);
}
template <std::random_access_iterator It, std::random_access_iterator Out, class Op,
          detail::algo::not_partition T>
Out inclusive_scan(It first, It last, Out d_first, Op op, T init, partition p = {}) {
  return fj::inclusive_scan(default_pool(), first, last, d_first, std::move(op), std::move(init), p);
}
template <std::random_access_iterator It, std::random_access_iterator Out, class T,
          detail::algo::not_partition Op = std::plus<>>
Out exclusive_scan(It first, It last, Out d_first, T init, Op op = {}, partition p = {}) {
  return fj::exclusive_scan(default_pool(), first, last, d_first, std::move(init), std::move(op), p);
}

// sort: unstable, in O(n log n) comparisons (a depth limit switches to heapsort). stable_sort: equal
// elements keep their order; uses a buffer of n elements.

template <scheduler Pool, std::random_access_iterator It, class Comp = std::ranges::less>
  requires std::sortable<It, Comp>
void sort(Pool& pool, It first, It last, Comp comp = {}) {
  detail::algo::sort_on(pool, first, last, comp);
}
template <scheduler Pool, std::ranges::random_access_range R, class Comp = std::ranges::less>
  requires std::sortable<std::ranges::iterator_t<R>, Comp>
void sort(Pool& pool, R&& r, Comp comp = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  detail::algo::sort_on(pool, b.first, b.last, comp);
}
template <std::random_access_iterator It, class Comp = std::ranges::less>
  requires std::sortable<It, Comp>
void sort(It first, It last, Comp comp = {}) {
  detail::algo::sort_on(default_pool(), first, last, comp);
}
template <std::ranges::random_access_range R, class Comp = std::ranges::less>
  requires std::sortable<std::ranges::iterator_t<R>, Comp>
void sort(R&& r, Comp comp = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  detail::algo::sort_on(default_pool(), b.first, b.last, comp);
}
template <scheduler Pool, std::random_access_iterator It, class Comp = std::ranges::less>
  requires std::sortable<It, Comp>
void stable_sort(Pool& pool, It first, It last, Comp comp = {}) {
  detail::algo::stable_sort_on(pool, first, last, comp);
}
template <scheduler Pool, std::ranges::random_access_range R, class Comp = std::ranges::less>
  requires std::sortable<std::ranges::iterator_t<R>, Comp>
void stable_sort(Pool& pool, R&& r, Comp comp = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  detail::algo::stable_sort_on(pool, b.first, b.last, comp);
}
template <std::random_access_iterator It, class Comp = std::ranges::less>
  requires std::sortable<It, Comp>
void stable_sort(It first, It last, Comp comp = {}) {
  detail::algo::stable_sort_on(default_pool(), first, last, comp);
}
template <std::ranges::random_access_range R, class Comp = std::ranges::less>
  requires std::sortable<std::ranges::iterator_t<R>, Comp>
void stable_sort(R&& r, Comp comp = {}) {
  auto const b = detail::algo::bounds(std::forward<R>(r));
  detail::algo::stable_sort_on(default_pool(), b.first, b.last, comp);
}

}  // namespace fj

// ---------------------------------------------------------------------------------------------------------
// The task forms: function objects whose call returns fj::task<R>, for use inside a task on any pool:
//   co_await fj::call(fj::co::for_each, first, last, f);
//   co_await fj::call(&sum, fj::co::reduce, first, last, 0L, std::plus<>{});
// The same arguments as the forms above without the pool (iterators only). They take their function objects
// by value; the range's elements must live until the call returns.
namespace fj::co {

struct for_each_fn {
  template <std::random_access_iterator It, class F>
  task<void> operator()(It first, It last, F f, partition p = {}) const {
    detail::algo::for_each_ctx<It, F> ctx{{}, first, &f};
    std::size_t const n = detail::algo::length(first, last);
    if (detail::algo::runs_serially(n, p)) {  // no child task for a small input
      ctx.run(0, n);
    } else {
      co_await fj::call(detail::algo::loop_in_task<decltype(ctx)>, &ctx, n, p);
      co_await fj::join;
    }
  }
};

struct for_each_index_fn {
  template <std::integral I, std::integral J, class F>
  task<void> operator()(I first, J last, F f, partition p = {}) const {
    using K = std::common_type_t<I, J>;
    detail::algo::for_each_index_ctx<K, F> ctx{{}, static_cast<K>(first), &f};
    std::size_t const n = detail::algo::index_count<K>(static_cast<K>(first), static_cast<K>(last));
    if (detail::algo::runs_serially(n, p)) {  // no child task for a small input
      ctx.run(0, n);
    } else {
      co_await fj::call(detail::algo::loop_in_task<decltype(ctx)>, &ctx, n, p);
      co_await fj::join;
    }
  }
};

struct transform_fn {
  template <std::random_access_iterator It, std::random_access_iterator Out, class F>
    requires detail::algo::not_partition<F>
  task<Out> operator()(It first, It last, Out d_first, F f, partition p = {}) const {
    detail::algo::transform_ctx<It, Out, F> ctx{{}, first, d_first, &f};
    std::size_t const n = detail::algo::length(first, last);
    ctx.stream = detail::algo::streams(first, d_first, n);
    if (detail::algo::runs_serially(n, p)) {  // no child task for a small input
      ctx.run(0, n);
    } else {
      co_await fj::call(detail::algo::loop_in_task<decltype(ctx)>, &ctx, n, p);
      co_await fj::join;
    }
    co_return detail::algo::at(d_first, n);
  }
  template <std::random_access_iterator It1, std::random_access_iterator It2, std::random_access_iterator Out,
            class F>
  task<Out> operator()(It1 first1, It1 last1, It2 first2, Out d_first, F f, partition p = {}) const {
    detail::algo::transform2_ctx<It1, It2, Out, F> ctx{{}, first1, first2, d_first, &f};
    std::size_t const n = detail::algo::length(first1, last1);
    ctx.stream = detail::algo::streams(first1, d_first, n) && detail::algo::streams(first2, d_first, n);
    if (detail::algo::runs_serially(n, p)) {  // no child task for a small input
      ctx.run(0, n);
    } else {
      co_await fj::call(detail::algo::loop_in_task<decltype(ctx)>, &ctx, n, p);
      co_await fj::join;
    }
    co_return detail::algo::at(d_first, n);
  }
};

struct transform_reduce_fn {
  template <std::random_access_iterator It, class T, class R, class U>
  task<T> operator()(It first, It last, T init, R reduce, U transform, partition p = {}) const {
    return detail::algo::transform_reduce_in_task(first, last, std::move(init), std::move(reduce),
                                                  std::move(transform), p);
  }
};

struct reduce_fn {
  template <std::random_access_iterator It, detail::algo::not_partition T = std::iter_value_t<It>,
            detail::algo::not_partition Op = std::plus<>>
  task<T> operator()(It first, It last, T init = T{}, Op op = {}, partition p = {}) const {
    return detail::algo::transform_reduce_in_task(first, last, std::move(init), std::move(op),
                                                  std::identity{}, p);
  }
};

struct count_if_fn {
  template <std::random_access_iterator It, class Pred>
  task<std::iter_difference_t<It>> operator()(It first, It last, Pred pred, partition p = {}) const {
    detail::algo::as_count<Pred> one{&pred};
    std::ptrdiff_t count = 0;
    co_await fj::call(
        &count,
        detail::algo::transform_reduce_in_task<It, std::ptrdiff_t, std::plus<>, detail::algo::as_count<Pred>>,
        first, last, std::ptrdiff_t{0}, std::plus<>{}, one, p);
    co_await fj::join;
    co_return static_cast<std::iter_difference_t<It>>(count);
  }
};

struct find_if_fn {
  template <std::random_access_iterator It, class Pred>
  task<It> operator()(It first, It last, Pred pred, partition p = {}) const {
    std::size_t i = 0;
    co_await fj::call(&i, detail::algo::find_in_task<It, Pred>, first, last, std::move(pred), false, p);
    co_await fj::join;
    co_return detail::algo::at(first, i);
  }
};

struct any_of_fn {
  template <std::random_access_iterator It, class Pred>
  task<bool> operator()(It first, It last, Pred pred, partition p = {}) const {
    std::size_t i = 0;
    co_await fj::call(&i, detail::algo::find_in_task<It, Pred>, first, last, std::move(pred), true, p);
    co_await fj::join;
    co_return i < detail::algo::length(first, last);
  }
};

struct none_of_fn {
  template <std::random_access_iterator It, class Pred>
  task<bool> operator()(It first, It last, Pred pred, partition p = {}) const {
    std::size_t i = 0;
    co_await fj::call(&i, detail::algo::find_in_task<It, Pred>, first, last, std::move(pred), true, p);
    co_await fj::join;
    co_return i >= detail::algo::length(first, last);
  }
};

struct all_of_fn {
  template <std::random_access_iterator It, class Pred>
  task<bool> operator()(It first, It last, Pred pred, partition p = {}) const {
    std::size_t i = 0;
    detail::algo::negated<Pred> no{&pred};
    co_await fj::call(&i, detail::algo::find_in_task<It, detail::algo::negated<Pred>>, first, last, no, true,
                      p);
    co_await fj::join;
    co_return i >= detail::algo::length(first, last);
  }
};

struct inclusive_scan_fn {
  template <std::random_access_iterator It, std::random_access_iterator Out,
            detail::algo::not_partition Op = std::plus<>>
  task<Out> operator()(It first, It last, Out d_first, Op op = {}, partition p = {}) const {
    return detail::algo::scan_in_task(first, last, d_first, std::optional<std::iter_value_t<It>>(),
                                      std::move(op), true, p);
  }
  template <std::random_access_iterator It, std::random_access_iterator Out, class Op,
            detail::algo::not_partition T>
  task<Out> operator()(It first, It last, Out d_first, Op op, T init, partition p = {}) const {
    return detail::algo::scan_in_task(first, last, d_first, std::optional<T>(std::move(init)), std::move(op),
                                      true, p);
  }
};

struct exclusive_scan_fn {
  template <std::random_access_iterator It, std::random_access_iterator Out, class T,
            detail::algo::not_partition Op = std::plus<>>
  task<Out> operator()(It first, It last, Out d_first, T init, Op op = {}, partition p = {}) const {
    return detail::algo::scan_in_task(first, last, d_first, std::optional<T>(std::move(init)), std::move(op),
                                      false, p);
  }
};

struct sort_fn {
  template <std::random_access_iterator It, class Comp = std::ranges::less>
    requires std::sortable<It, Comp>
  task<void> operator()(It first, It last, Comp comp = {}) const {
    return detail::algo::sort_in_task(first, last, std::move(comp));
  }
};

struct stable_sort_fn {
  template <std::random_access_iterator It, class Comp = std::ranges::less>
    requires std::sortable<It, Comp>
  task<void> operator()(It first, It last, Comp comp = {}) const {
    return detail::algo::stable_sort_in_task(first, last, std::move(comp));
  }
};

inline constexpr for_each_fn for_each{};
inline constexpr for_each_index_fn for_each_index{};
inline constexpr transform_fn transform{};
inline constexpr transform_reduce_fn transform_reduce{};
inline constexpr reduce_fn reduce{};
inline constexpr count_if_fn count_if{};
inline constexpr find_if_fn find_if{};
inline constexpr any_of_fn any_of{};
inline constexpr none_of_fn none_of{};
inline constexpr all_of_fn all_of{};
inline constexpr inclusive_scan_fn inclusive_scan{};
inline constexpr exclusive_scan_fn exclusive_scan{};
inline constexpr sort_fn sort{};
inline constexpr stable_sort_fn stable_sort{};

}  // namespace fj::co
