#pragma once
// The contexts of the element-wise algorithms (for_each, for_each_index, transform, transform_reduce and
// the algorithms built on it, find_if and the algorithms built on it): what one block of indices does. The
// engines that split the range are loop.hpp's.

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <functional>
#include <iterator>
#include <optional>
#include <type_traits>
#include <utility>

#include "forkjoin/detail/algorithm/fold_run.hpp"
#include "forkjoin/detail/algorithm/loop.hpp"
#include "forkjoin/detail/algorithm/partition.hpp"
#include "forkjoin/detail/algorithm/streaming_store.hpp"

namespace fj::detail::algo {

// The loops of for_each and transform count elements instead of comparing iterators, so that clang unrolls
// them for any random-access iterator type (scan.hpp, inclusive_run).

// f(*it) for every element.
template <class It, class F>
struct for_each_ctx : piece_state {
  It first;
  F* f;

  void run(std::size_t lo, std::size_t hi) {
    stopping_on_throw(stop, [&] {
      It it = at(first, lo);
      for (std::size_t i = lo; i < hi; ++i, ++it) std::invoke(*f, *it);
    });
  }
};

// f(i) for every index i of [first, last) (an integer range). Offsets from `first` are computed in the
// unsigned type, so a range whose length does not fit the signed index type (say INT_MIN to INT_MAX) is
// still walked exactly once.
template <std::integral I, class F>
struct for_each_index_ctx : piece_state {
  using unsigned_type = std::make_unsigned_t<I>;
  I first;
  F* f;

  void run(std::size_t lo, std::size_t hi) {
    stopping_on_throw(stop, [&] {
      auto const base = static_cast<unsigned_type>(first);
      for (std::size_t i = lo; i < hi; ++i) {
        std::invoke(*f, static_cast<I>(static_cast<unsigned_type>(base + static_cast<unsigned_type>(i))));
      }
    });
  }
};

// The number of indices in [first, last) as a size_t: 0 when last <= first.
template <std::integral I>
[[nodiscard]] constexpr std::size_t index_count(I first, I last) noexcept {
  static_assert(sizeof(I) <= sizeof(std::size_t), "fj::for_each_index: the index type is wider than size_t");
  if (!(first < last)) return 0;
  using U = std::make_unsigned_t<I>;
  return static_cast<std::size_t>(static_cast<U>(static_cast<U>(last) - static_cast<U>(first)));
}

// *out = f(*in) (Binary: *out = f(*in, *in2)). `stream`: write whole lines of the output with streaming
// stores (streaming_store.hpp; set by the caller where `streams` allows it).
template <class It, class Out, class F>
struct transform_ctx : piece_state {
  It first;
  Out d_first;
  F* f;
  bool stream = false;

  void run(std::size_t lo, std::size_t hi) {
    stopping_on_throw(stop, [&] {
      It it = at(first, lo);
      Out out = at(d_first, lo);
#if FJ_STREAMING_STORES
      if constexpr (streamable_output<Out>) {
        if (stream) {
          stream_fill(std::to_address(out), hi - lo, [&] { return std::invoke(*f, *it++); });
          return;
        }
      }
#endif
      for (std::size_t i = lo; i < hi; ++i, ++it, ++out) *out = std::invoke(*f, *it);
    });
  }
};

template <class It1, class It2, class Out, class F>
struct transform2_ctx : piece_state {
  It1 first1;
  It2 first2;
  Out d_first;
  F* f;
  bool stream = false;

  void run(std::size_t lo, std::size_t hi) {
    stopping_on_throw(stop, [&] {
      It1 it = at(first1, lo);
      It2 it2 = at(first2, lo);
      Out out = at(d_first, lo);
#if FJ_STREAMING_STORES
      if constexpr (streamable_output<Out>) {
        if (stream) {
          stream_fill(std::to_address(out), hi - lo, [&] { return std::invoke(*f, *it++, *it2++); });
          return;
        }
      }
#endif
      for (std::size_t i = lo; i < hi; ++i, ++it, ++it2, ++out) {
        *out = std::invoke(*f, *it, *it2);
      }
    });
  }
};

// The fold of reduce(transform(x)) over the blocks; T is the type of init.
template <class It, class T, class Reduce, class Transform>
struct transform_reduce_ctx : piece_state {
  using value_type = T;
  It first;
  Reduce* reduce;
  Transform* transform;
  bool beside_others = false;

  void fold(std::optional<T>& acc, std::size_t lo, std::size_t hi) {
    stopping_on_throw(stop, [&] {
      It it = at(first, lo);
      std::size_t count = hi - lo;
      if (!acc) {
        acc.emplace(std::invoke(*transform, *it));
        ++it;
        --count;
      }
      *acc = run(it, count, std::move(*acc));
    });
  }

  T run(It it, std::size_t count, T a) {
    if (beside_others) return fold_one(it, count, std::move(a), *reduce, *transform);
    return fold_run(it, count, std::move(a), *reduce, *transform);
  }

  T combine(T a, T b) { return std::invoke(*reduce, std::move(a), std::move(b)); }
};

// find_if and the algorithms built on it. `found` is the least index known to match (n when none is): blocks
// beyond it are skipped. In `any` mode any match ends the whole search (the stop flag), as any_of needs.
template <class It, class Pred>
struct find_ctx : piece_state {
  It first;
  Pred* pred;
  bool any;
  std::atomic<std::size_t> found;

  find_ctx(It f, Pred* p, bool any_match, std::size_t n) : first(f), pred(p), any(any_match), found(n) {}

  void run(std::size_t lo, std::size_t hi) {
    // relaxed: a hint to skip blocks. The final value is read after the joins (or on this thread), which
    // order every store to it.
    if (lo >= found.load(std::memory_order_relaxed)) return;
    stopping_on_throw(stop, [&] {
      // std::find_if on the block: the standard library's loop is unrolled.
      It const block_first = at(first, lo);
      It const hit = std::find_if(block_first, at(first, hi), std::ref(*pred));
      if (hit != at(first, hi)) lower_to(lo + static_cast<std::size_t>(hit - block_first));
    });
  }

  void lower_to(std::size_t i) noexcept {
    // relaxed: see run(); a minimum, so the order of competing stores does not matter.
    std::size_t seen = found.load(std::memory_order_relaxed);
    while (i < seen && !found.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
    }
    if (any) stop.stop();
  }
};

}  // namespace fj::detail::algo
