#pragma once
// The serial fold of one block, a op f(x) for every element x in index order. reduce, transform_reduce and
// count_if fold with fold_run while one thread folds alone (the caller's timed prefix, a call that stays on
// the caller) and with fold_one in the blocks that threads fold side by side (elementwise.hpp); the scans
// fold their chunks with fold_one (scan.hpp). fold_run's quarters are four streams of loads: alone, they keep
// more loads in flight than one stream; side by side, the threads' streams already keep the memory busy, and
// four per thread were slower than one (docs/performance.md "One stream per thread in the parallel part").

#include <cstddef>
#include <functional>
#include <utility>

#include "forkjoin/detail/algorithm/partition.hpp"

namespace fj::detail::algo {

// Below four quarters of this many elements, fold_run keeps one accumulator.
inline constexpr std::size_t min_quarter = 16;

// One accumulator. A counted loop in a function of its own, with a local accumulator: clang-19 then
// vectorises it (the sum of squares of 64-bit integers with pmuludq). An `it != end` loop that the first
// element's branch jumped into was compiled as a scalar loop, one multiply per element (docs/performance.md
// "Parallel algorithms").
template <class It, class T, class Op, class F>
T fold_one(It it, std::size_t count, T a, Op& op, F& f) {
  for (std::size_t i = 0; i < count; ++i, ++it) a = std::invoke(op, std::move(a), std::invoke(f, *it));
  return a;
}

// Folds `count` elements from `it` into `a`. Four accumulators over the four quarters of the elements,
// combined in index order at the end: four independent chains instead of one, which a fold whose every step
// waits for the one before (a sum of squares, a sum whose loads miss the cache) needs to keep the core busy.
// Every operand keeps its place, so op need only be associative, as everywhere else; only the grouping
// differs from one accumulator's (for floating point, the rounding), and it depends on `count` alone.
template <class It, class T, class Op, class F>
T fold_run(It it, std::size_t count, T a, Op& op, F& f) {
  if (count < 4 * min_quarter) return fold_one(it, count, std::move(a), op, f);
  std::size_t const q = count / 4;
  It i1 = at(it, q);
  It i2 = at(it, 2 * q);
  It i3 = at(it, 3 * q);
  It const rest = at(it, 4 * q);
  a = std::invoke(op, std::move(a), std::invoke(f, *it));
  T b = std::invoke(f, *i1);
  T c = std::invoke(f, *i2);
  T d = std::invoke(f, *i3);
  ++it;
  ++i1;
  ++i2;
  ++i3;
  for (std::size_t i = 1; i < q; ++i, ++it, ++i1, ++i2, ++i3) {
    a = std::invoke(op, std::move(a), std::invoke(f, *it));
    b = std::invoke(op, std::move(b), std::invoke(f, *i1));
    c = std::invoke(op, std::move(c), std::invoke(f, *i2));
    d = std::invoke(op, std::move(d), std::invoke(f, *i3));
  }
  d = fold_one(rest, count - 4 * q, std::move(d), op, f);
  a = std::invoke(op, std::move(a), std::move(b));
  a = std::invoke(op, std::move(a), std::move(c));
  return std::invoke(op, std::move(a), std::move(d));
}

}  // namespace fj::detail::algo
