#pragma once
// sort (a parallel quicksort) and stable_sort (a parallel merge sort with a parallel merge).
//
// Every loop here is bounded by indices, never by what the comparator says: with a comparator that is not a
// strict weak order (inconsistent, or even random answers) the sorts still end, touch only the range (and
// the stable sort's buffer), and leave a permutation of the input (docs/algorithms.md "Bad input"). The
// standard library's sorts do not promise that (their insertion sorts scan without a bound check), so the
// serial leaves are this file's own, except for the orders known to be strict weak orders: the standard
// less/greater function objects on integer and pointer types, which go to std::sort.

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>

#include "forkjoin/detail/algorithm/loop.hpp"
#include "forkjoin/detail/algorithm/partition.hpp"

namespace fj::detail::algo {

// Ranges up to this long are sorted by a serial leaf.
inline constexpr std::size_t sort_leaf = 2048;
// Below this length a sort called from ordinary code runs serially on the caller (entering the pool would
// cost more than the parallel part saves).
inline constexpr std::size_t sort_serial_cutoff = 4096;
// Ranges up to this long are sorted by insertion.
inline constexpr std::size_t insertion_limit = 16;
// A merge of up to this many elements runs serially.
inline constexpr std::size_t merge_leaf = 8192;

template <class Comp, class T>
inline constexpr bool known_strict_weak_order =
    (std::is_integral_v<T> || std::is_pointer_v<T>) &&
    (std::is_same_v<Comp, std::less<>> || std::is_same_v<Comp, std::greater<>> ||
     std::is_same_v<Comp, std::less<T>> || std::is_same_v<Comp, std::greater<T>> ||
     std::is_same_v<Comp, std::ranges::less> || std::is_same_v<Comp, std::ranges::greater>);

// Stable insertion sort of [first, last), each scan bounded by `first`. If the comparator throws, the element
// being inserted is put back first, so the range still holds every element.
template <class It, class Comp>
void insertion_sort(It first, It last, Comp& comp) {
  if (first == last) return;
  for (It i = std::next(first); i != last; ++i) {
    if (!comp(*i, *std::prev(i))) continue;
    auto value = std::move(*i);
    It hole = i;
    try {
      do {
        *hole = std::move(*std::prev(hole));
        --hole;
      } while (hole != first && comp(value, *std::prev(hole)));
    } catch (...) {
      *hole = std::move(value);
      throw;
    }
    *hole = std::move(value);
  }
}

// Moves the median of *a, *b, *c (by comp) to *a, with swaps only.
template <class It, class Comp>
void median_to_first(It a, It b, It c, Comp& comp) {
  if (comp(*b, *a)) std::iter_swap(a, b);  // now *a <= *b
  if (comp(*c, *b)) {
    std::iter_swap(b, c);  // now *b is the largest
    if (comp(*b, *a)) std::iter_swap(a, b);
  }
  // *a <= *b <= *c for a strict weak order: the median is *b.
  std::iter_swap(a, b);
}

// The bulk of a Hoare partition for integers in memory under a standard order (BlockQuicksort, Edelkamp and
// Weiss): each side records, without a branch per element, where in its next block the elements on the wrong
// side of the pivot *p are, and those are swapped in pairs. Mispredicted branches are most of a branchy
// partition's time on random keys. Returns the part of (p, p + n) left for the caller's scan, at most
// two blocks: before it no element is greater than the pivot, after it none is less.
template <class T, class Comp>
std::pair<std::size_t, std::size_t> block_partition(T* p, std::size_t n, Comp& comp) {
  constexpr std::size_t block = 64;
  T const pivot = p[0];
  T* l = p + 1;
  T* r = p + n;  // [l, r) is not partitioned yet
  unsigned char wrong_l[block];
  unsigned char wrong_r[block];
  std::size_t count_l = 0;
  std::size_t count_r = 0;
  std::size_t start_l = 0;
  std::size_t start_r = 0;
  while (static_cast<std::size_t>(r - l) > 2 * block) {
    if (count_l == 0) {
      start_l = 0;
      for (std::size_t k = 0; k < block; ++k) {
        wrong_l[count_l] = static_cast<unsigned char>(k);
        count_l += static_cast<std::size_t>(!comp(l[k], pivot));
      }
    }
    if (count_r == 0) {
      start_r = 0;
      for (std::size_t k = 0; k < block; ++k) {
        wrong_r[count_r] = static_cast<unsigned char>(k);
        count_r += static_cast<std::size_t>(!comp(pivot, *(r - 1 - k)));
      }
    }
    std::size_t const pairs = std::min(count_l, count_r);
    for (std::size_t k = 0; k < pairs; ++k) {
      std::swap(l[wrong_l[start_l + k]], *(r - 1 - wrong_r[start_r + k]));
    }
    count_l -= pairs;
    count_r -= pairs;
    start_l += pairs;
    start_r += pairs;
    // A block is done once it has no element left on the wrong side; a block with some left stays in
    // [l, r), where the caller's scan finds them if the loop ends first.
    if (count_l == 0) l += block;
    if (count_r == 0) r -= block;
  }
  return {static_cast<std::size_t>(l - p), static_cast<std::size_t>(r - p)};
}

// Hoare partition around a pivot chosen by a median of three (of three medians for long ranges), with both
// scans bounded by each other. Returns the pivot's final place p: [first, p) holds no element greater than
// it, (p, last) none less, for a strict weak order; for any comparator both sides are shorter than the range.
template <class It, class Comp>
It partition_around_pivot(It first, It last, Comp& comp) {
  auto const n = last - first;
  It const mid = first + n / 2;
  if (n > 128) {
    auto const s = n / 8;
    median_to_first(first + 1, first + s, first + 2 * s, comp);
    median_to_first(mid, mid - s, mid + s, comp);
    median_to_first(last - 1, last - 1 - s, last - 1 - 2 * s, comp);
    median_to_first(first + 1, mid, last - 1, comp);
    std::iter_swap(first, first + 1);
  } else {
    median_to_first(mid, first, last - 1, comp);
    std::iter_swap(first, mid);
  }
  It i = first + 1;
  It j = last - 1;
  if constexpr (known_strict_weak_order<Comp, std::iter_value_t<It>> && std::contiguous_iterator<It>) {
    auto const [lo, hi] = block_partition(std::to_address(first), static_cast<std::size_t>(n), comp);
    i = first + static_cast<std::ptrdiff_t>(lo);
    j = first + static_cast<std::ptrdiff_t>(hi) - 1;
  }
  while (true) {
    while (i <= j && comp(*i, *first)) ++i;
    while (i <= j && comp(*first, *j)) --j;
    if (i >= j) break;
    std::iter_swap(i, j);
    ++i;
    --j;
  }
  It const p = i - 1;
  std::iter_swap(first, p);
  return p;
}

template <class It, class Comp>
void heap_sort(It first, It last, Comp& comp) {
  std::make_heap(first, last, std::ref(comp));
  std::sort_heap(first, last, std::ref(comp));
}

// Serial introsort: quicksort, heapsort past a depth limit, insertion sort for short ranges. Recurses on the
// shorter side only, so its stack depth is logarithmic.
template <class It, class Comp>
void serial_sort(It first, It last, Comp& comp, int depth) {
  using T = std::iter_value_t<It>;
  if constexpr (known_strict_weak_order<Comp, T> && !std::contiguous_iterator<It>) {
    (void)depth;
    std::sort(first, last, comp);
  } else {
    while (static_cast<std::size_t>(last - first) > insertion_limit) {
      if (depth-- <= 0) {
        heap_sort(first, last, comp);
        return;
      }
      It const p = partition_around_pivot(first, last, comp);
      if (p - first < last - (p + 1)) {
        serial_sort(first, p, comp, depth);
        first = p + 1;
      } else {
        serial_sort(p + 1, last, comp, depth);
        last = p;
      }
    }
    insertion_sort(first, last, comp);
  }
}

// Whether no element of [lo, hi) is less than the one before it (the first element has none). Bounded by
// the range whatever the comparator answers.
template <class It, class Comp>
[[nodiscard]] bool no_descent(It first, std::size_t lo, std::size_t hi, Comp& comp) {
  lo = std::max<std::size_t>(lo, 1);
  if (hi <= lo) return true;
  using T = std::iter_value_t<It>;
  if constexpr (known_strict_weak_order<Comp, T> && std::contiguous_iterator<It>) {
    // Integers in memory: after a few elements (where a random input shows a descent), compare a block at
    // a time with no branch per element, which the compiler vectorises, so that a sorted input is checked
    // at the speed of reading it.
    T const* p = std::to_address(first);
    std::size_t const head = std::min(hi, lo + 16);
    for (std::size_t i = lo; i < head; ++i) {
      if (comp(p[i], p[i - 1])) return false;
    }
    constexpr std::size_t block = 512;
    std::size_t i = head;
    for (; i + block <= hi; i += block) {
      bool descent = false;
      for (std::size_t j = i; j < i + block; ++j) descent |= comp(p[j], p[j - 1]);
      if (descent) return false;
    }
    for (; i < hi; ++i) {
      if (comp(p[i], p[i - 1])) return false;
    }
    return true;
  } else {
    return std::is_sorted(at(first, lo - 1), at(first, hi), std::ref(comp));
  }
}

// A sorted input (common in practice) costs one pass; an unsorted one is usually found out within a few
// elements.
template <class It, class Comp>
[[nodiscard]] bool already_sorted(It first, std::size_t n, Comp& comp) {
  return no_descent(first, 0, n, comp);
}

// The sortedness check as a loop over the pool (loop.hpp), so that a long sorted input is read by every
// worker; the first descent any piece finds stops the others.
template <class It, class Comp>
struct sorted_ctx : piece_state {
  sorted_ctx(It f, Comp* c) : first(f), comp(c) {}

  It first;
  Comp* comp;
  // relaxed: written by the piece that finds a descent and read after the joins, which order it.
  std::atomic<bool> descent{false};

  void run(std::size_t lo, std::size_t hi) {
    if (stop.stopped()) return;
    stopping_on_throw(stop, [&] {
      if (!no_descent(first, lo, hi, *comp)) {
        descent.store(true, std::memory_order_relaxed);
        stop.stop();
      }
    });
  }
};

[[nodiscard]] inline int depth_limit(std::size_t n) noexcept {
  return 2 * static_cast<int>(std::bit_width(n)) + 2;
}

template <class It, class Comp>
struct sort_ctx {
  stop_flag stop;
  Comp* comp;
};

// A comparator that throws stops the other pieces before its exception travels on.
template <class Fn>
void sort_piece(stop_flag& stop, Fn&& fn) {
  if (stop.stopped()) return;
  stopping_on_throw(stop, std::forward<Fn>(fn));
}

template <class It, class Comp>
task<void> parallel_sort(sort_ctx<It, Comp>* ctx, It first, It last, int depth) {
  auto const n = static_cast<std::size_t>(last - first);
  if (n <= sort_leaf || depth <= 0) {
    sort_piece(ctx->stop, [&] {
      if (depth <= 0) {
        heap_sort(first, last, *ctx->comp);
      } else {
        serial_sort(first, last, *ctx->comp, depth);
      }
    });
    co_return;
  }
  if (ctx->stop.stopped()) co_return;
  It p = first;
  sort_piece(ctx->stop, [&] { p = partition_around_pivot(first, last, *ctx->comp); });
  if (ctx->stop.stopped()) co_return;
  co_await fj::fork(parallel_sort<It, Comp>, ctx, first, p, depth - 1);
  co_await fj::call(parallel_sort<It, Comp>, ctx, p + 1, last, depth - 1);
  co_await fj::join;
}

// ---- stable sort ----

// Moves the stable merge of [a, a + na) and [b, b + nb) to out (bounded by both ranges' ends).
template <class Src, class Dst, class Comp>
void serial_merge(Src a, std::size_t na, Src b, std::size_t nb, Dst out, Comp& comp) {
  std::merge(std::make_move_iterator(a), std::make_move_iterator(at(a, na)), std::make_move_iterator(b),
             std::make_move_iterator(at(b, nb)), out, std::ref(comp));
}

template <class Src, class Dst, class Comp>
task<void> parallel_merge(stop_flag* stop, Comp* comp, Src a, std::size_t na, Src b, std::size_t nb,
                          Dst out) {
  if (stop->stopped()) co_return;
  if (na + nb <= merge_leaf) {
    stopping_on_throw(*stop, [&] { serial_merge(a, na, b, nb, out, *comp); });
    co_return;
  }
  // Split the longer run in the middle and the other where that element belongs; elements of `a` stay
  // before equal elements of `b` on both sides, so the merge stays stable.
  std::size_t i = 0;
  std::size_t j = 0;
  stopping_on_throw(*stop, [&] {
    if (na >= nb) {
      i = na / 2;
      j = static_cast<std::size_t>(std::lower_bound(b, at(b, nb), *at(a, i), std::ref(*comp)) - b);
    } else {
      j = nb / 2;
      i = static_cast<std::size_t>(std::upper_bound(a, at(a, na), *at(b, j), std::ref(*comp)) - a);
    }
  });
  co_await fj::fork(parallel_merge<Src, Dst, Comp>, stop, comp, a, i, b, j, out);
  co_await fj::call(parallel_merge<Src, Dst, Comp>, stop, comp, at(a, i), na - i, at(b, j), nb - j,
                    at(out, i + j));
  co_await fj::join;
}

// Stable insertion sort of the n elements at src into dst (n live elements, overwritten): the leaf of a merge
// sort whose result belongs in the other array, with no separate pass to move it there. Bounded by indices.
template <class Src, class Dst, class Comp>
void insertion_sort_into(Src src, std::size_t n, Dst dst, Comp& comp) {
  if (n == 0) return;
  *dst = std::move(*src);
  for (std::size_t i = 1; i < n; ++i) {
    Src const from = at(src, i);
    std::size_t hole = i;
    while (hole > 0 && comp(*from, *at(dst, hole - 1))) {
      *at(dst, hole) = std::move(*at(dst, hole - 1));
      --hole;
    }
    *at(dst, hole) = std::move(*from);
  }
}

// Sorts the n elements at `data` stably. The result ends in `data` (to_buffer false) or at `buffer` (true);
// both hold n live elements.
template <class It, class Buf, class Comp>
void serial_merge_sort(It data, Buf buffer, std::size_t n, bool to_buffer, Comp& comp) {
  if (n <= insertion_limit) {
    if (to_buffer) {
      insertion_sort_into(data, n, buffer, comp);
    } else {
      insertion_sort(data, at(data, n), comp);
    }
    return;
  }
  std::size_t const m = n / 2;
  serial_merge_sort(data, buffer, m, !to_buffer, comp);
  serial_merge_sort(at(data, m), at(buffer, m), n - m, !to_buffer, comp);
  if (to_buffer) {
    serial_merge(data, m, at(data, m), n - m, buffer, comp);
  } else {
    serial_merge(buffer, m, at(buffer, m), n - m, data, comp);
  }
}

template <class It, class Buf, class Comp>
task<void> parallel_merge_sort(stop_flag* stop, Comp* comp, It data, Buf buffer, std::size_t n,
                               bool to_buffer) {
  if (stop->stopped()) co_return;
  if (n <= sort_leaf) {
    stopping_on_throw(*stop, [&] { serial_merge_sort(data, buffer, n, to_buffer, *comp); });
    co_return;
  }
  std::size_t const m = n / 2;
  co_await fj::fork(parallel_merge_sort<It, Buf, Comp>, stop, comp, data, buffer, m, !to_buffer);
  co_await fj::call(parallel_merge_sort<It, Buf, Comp>, stop, comp, at(data, m), at(buffer, m), n - m,
                    !to_buffer);
  co_await fj::join;
  if (stop->stopped()) co_return;
  if (to_buffer) {
    co_await fj::call(parallel_merge<It, Buf, Comp>, stop, comp, data, m, at(data, m), n - m, buffer);
    co_await fj::join;
  } else {
    co_await fj::call(parallel_merge<Buf, It, Comp>, stop, comp, buffer, m, at(buffer, m), n - m, data);
    co_await fj::join;
  }
}

// The merge sort's second array of n live elements, destroyed with it. For a default-constructible type it is
// scratch space (default-initialised: nothing at all for int) and the sort starts from the range; otherwise
// it is made by moving the range's elements out, and the sort starts from it (holds_input()).
template <class T>
class merge_buffer {
 public:
  template <class It>
  merge_buffer(It first, std::size_t n) : n_(n), data_(std::allocator<T>().allocate(n)) {
    try {
      if constexpr (std::is_default_constructible_v<T>) {
        std::uninitialized_default_construct_n(data_, n);
      } else {
        std::uninitialized_move(first, at(first, n), data_);
      }
    } catch (...) {
      std::allocator<T>().deallocate(data_, n_);
      throw;
    }
  }
  static constexpr bool holds_input() noexcept { return !std::is_default_constructible_v<T>; }
  merge_buffer(const merge_buffer&) = delete;
  merge_buffer& operator=(const merge_buffer&) = delete;
  ~merge_buffer() {
    std::destroy_n(data_, n_);
    std::allocator<T>().deallocate(data_, n_);
  }
  [[nodiscard]] T* data() const noexcept { return data_; }

 private:
  std::size_t n_;
  T* data_;
};

// Sorts the range stably, from wherever merge_buffer says the values are; the result ends in the range.
template <class It, class Comp>
void serial_stable_sort(It first, merge_buffer<std::iter_value_t<It>>& buffer, std::size_t n, Comp& comp) {
  if constexpr (merge_buffer<std::iter_value_t<It>>::holds_input()) {
    serial_merge_sort(buffer.data(), first, n, true, comp);
  } else {
    serial_merge_sort(first, buffer.data(), n, false, comp);
  }
}

template <class It, class Comp>
task<void> stable_sort_task(stop_flag* stop, Comp* comp, It first,
                            merge_buffer<std::iter_value_t<It>>* buffer, std::size_t n) {
  using T = std::iter_value_t<It>;
  if constexpr (merge_buffer<T>::holds_input()) {
    co_await fj::call(parallel_merge_sort<T*, It, Comp>, stop, comp, buffer->data(), first, n, true);
  } else {
    co_await fj::call(parallel_merge_sort<It, T*, Comp>, stop, comp, first, buffer->data(), n, false);
  }
  co_await fj::join;
}

}  // namespace fj::detail::algo
