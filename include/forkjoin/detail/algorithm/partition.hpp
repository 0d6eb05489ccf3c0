#pragma once
// fj::partition: how a parallel algorithm cuts its range into pieces (docs/algorithms.md "Grain"), and the
// pieces every algorithm shares: the stop flag that ends the remaining work early after an exception, the
// test that decides when to split, and the timed serial prefix that keeps small inputs off the pool.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>

#include "forkjoin/detail/pool_core.hpp"
#include "forkjoin/detail/worker_context.hpp"

namespace fj {

// The three ways to split. Pass one as the last argument of an algorithm; the default is automatic().
class partition {
 public:
  enum class kind : unsigned char {
    automatic,  // timed serial prefix, then lazy binary splitting with a measured block size
    grain,      // lazy binary splitting in blocks of `size` elements; parallel whenever size < n
    fixed,      // a balanced binary tree of leaves of at most `size` elements: the same for any worker count
  };

  constexpr partition() noexcept = default;

  [[nodiscard]] static constexpr partition automatic() noexcept { return {}; }
  [[nodiscard]] static constexpr partition with_grain(std::size_t size) noexcept {
    return partition(kind::grain, size);
  }
  [[nodiscard]] static constexpr partition with_fixed_grain(std::size_t size) noexcept {
    return partition(kind::fixed, size);
  }

  [[nodiscard]] constexpr kind how() const noexcept { return kind_; }
  // The grain in elements (at least 1); unused by automatic().
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }

 private:
  constexpr partition(kind k, std::size_t size) noexcept : kind_(k), size_(size == 0 ? 1 : size) {}

  kind kind_ = kind::automatic;
  std::size_t size_ = 1;
};

// Blocks of `size` elements, split lazily (when the worker has nothing left that a thief could take).
[[nodiscard]] constexpr partition grain(std::size_t size) noexcept { return partition::with_grain(size); }

// A split that depends only on the range's length and `size`: reduce and scan then combine in the same order,
// and give the same floating-point rounding, at any worker count and on any run.
[[nodiscard]] constexpr partition fixed_grain(std::size_t size = 2048) noexcept {
  return partition::with_fixed_grain(size);
}

}  // namespace fj

namespace fj::detail::algo {

// Below this many elements an automatic partition runs the serial loop with no timing at all, so that small
// inputs pay only a comparison. Elements costing microseconds each need fj::grain to go parallel here.
inline constexpr std::size_t serial_cutoff = 2048;
// The timed prefix of a call from ordinary code: entering the pool (a submission, a wake-up, a blocking
// wait) costs tens of microseconds, so work that finishes within this much time stays on the caller.
inline constexpr std::uint64_t enter_pool_ns = 50'000;
// The same when a worker is awake and idle: entering then costs a submission that an awake worker takes
// within microseconds, so a call goes parallel once it looks longer than this.
inline constexpr std::uint64_t enter_awake_pool_ns = 8'000;
// The timed prefix inside a task, where going parallel costs only forks: just long enough to measure.
inline constexpr std::uint64_t in_task_gate_ns = 4'000;
// The budget of a call on a pool of one worker: that worker would only run the work the caller can run
// itself, after a wake-up, so an automatic partition runs it all on the caller.
inline constexpr std::uint64_t unlimited_ns = std::numeric_limits<std::uint64_t>::max();

// The measured block size aims at blocks this long: the split test runs once per block, and a thief waits
// at most about a block for its victim to split.
inline constexpr std::uint64_t target_block_ns = 4'000;
// The first timed block of the prefix; each next one is twice as long, so the clock is read O(log n) times.
inline constexpr std::size_t first_gate_block = 256;

// The number of elements of [first, last), or 0 for an empty or reversed range.
template <std::random_access_iterator It>
[[nodiscard]] constexpr std::size_t length(const It& first, const It& last) {
  auto const d = last - first;
  return d > 0 ? static_cast<std::size_t>(d) : 0;
}

// first + i, for i below the range's length (which fits the iterator's difference type).
template <std::random_access_iterator It>
[[nodiscard]] constexpr It at(const It& first, std::size_t i) {
  return first + static_cast<std::iter_difference_t<It>>(i);
}

// The serial gate, tested before anything else (the pool's size, the clock, a task): an automatic partition
// runs an input below serial_cutoff on the caller, an explicit grain an input of at most one grain.
[[nodiscard]] constexpr bool runs_serially(std::size_t n, partition p) noexcept {
  return p.how() == partition::kind::automatic ? n < serial_cutoff : n <= p.size();
}

// Set by the first piece that throws (or, for a search, finds what it looks for); every piece tests it before
// its next block, so that the rest of the work stops early.
class stop_flag {
 public:
  [[nodiscard]] bool stopped() const noexcept {
    // relaxed: only a hint to skip work. The exception itself reaches the caller through the joins, which
    // order everything; a piece that misses the store only does work whose result is thrown away.
    return flag_.load(std::memory_order_relaxed);
  }
  void stop() noexcept {
    // relaxed: see stopped(); nothing is published through this flag.
    flag_.store(true, std::memory_order_relaxed);
  }

 private:
  std::atomic<bool> flag_{false};
};

// Lazy binary splitting: split the rest of a piece only when a thief would find nothing to take from this
// worker: its continuation deque is empty, and so is its deque of plain spawns (a task may hold an
// fj::scope open across the co_await that runs the algorithm; thieves try that deque too,
// docs/protocols/spawn.md). Elsewhere (a thread outside the pool) never.
[[nodiscard]] inline bool should_split() noexcept {
  worker_context* const w = tls_worker;
  return w != nullptr && tls_owner.empty() && w->spawned_owner.empty();
}

// should_split for a piece of a call that its caller works on too (loop.hpp, "from ordinary code"): also only
// while the pool has a worker slot left beside its active workers and that caller, so that the call keeps to
// the pool's P threads instead of P + 1 (docs/algorithms.md "Entering the pool").
[[nodiscard]] inline bool should_split_beside_caller() noexcept {
  worker_context* const w = tls_worker;
  return w != nullptr && tls_owner.empty() && w->spawned_owner.empty() && w->pool->room_beside_caller();
}

// The share of the blocks left that the pool's end of a call from ordinary code takes at once (loop.hpp,
// shared_ends::take_right), as a divisor: half while another worker may still join (the share is then split
// lazily among those that come); 1 / (2P) once none can. Then nobody can take part of a share from the worker
// that holds it (it does not split, and the caller is no thief), so a large share would leave the caller
// waiting at the end whenever that worker is slower than the caller; small shares end about together.
[[nodiscard]] inline std::uint64_t pool_share_divisor() noexcept {
  worker_context* const w = tls_worker;
  if (w == nullptr || w->pool->room_beside_caller()) return 2;
  return 2 * static_cast<std::uint64_t>(w->pool->size());
}

// What every context of a split algorithm holds: the stop flag, and the block size its engine uses.
struct piece_state {
  stop_flag stop;
  std::size_t block = 1;
};

struct gate_result {
  std::size_t done;   // elements [0, done) have been processed
  std::size_t block;  // block size for the rest, from the measured time per element
};

// When the timed prefix hands the rest to the pool: once the whole call looks longer than the budget, or
// only once the budget has passed (the scans: their prefix is one pass over the data, their parallel part
// reads some of it twice, so a longer prefix pays).
enum class prefix_end : bool { projected, at_budget };

// What an at_budget prefix does half way through its budget when the call looks like going parallel: nothing
// inside a task (the pool's workers are awake), a prewake from ordinary code (scan_on's pool_prewake): the
// blocks double, so the prefix ends about one block later, and the woken worker is then awake when the rest
// is submitted.
struct no_prewake {
  void operator()() const noexcept {}
};

// Runs block(lo, hi) over [0, n) in growing blocks on the calling thread until either everything is done or
// the call goes parallel (`when`); then reports how far it got and a block size that should take about
// target_block_ns. "Looks longer": after a quarter of the budget, the time so far scaled to all n elements
// reaches the budget. Deciding then, not at the end of the budget, starts the pool's workers while most of a
// call of a few hundred microseconds is still ahead; the quarter keeps the first, cold blocks from deciding
// alone.
//
// `wish`, with `wish_ns` below the budget (a projected prefix from ordinary code while every worker sleeps):
// called once when the call first looks longer than `wish_ns` and does not go parallel on that block.
template <class Block, class Half = no_prewake, class Wish = no_prewake>
gate_result timed_prefix(std::size_t n, std::uint64_t budget_ns, Block block,
                         prefix_end when = prefix_end::projected, Half half = {}, std::uint64_t wish_ns = 0,
                         Wish wish = {}) {
  using clock = std::chrono::steady_clock;
  auto const start = clock::now();
  std::size_t done = 0;
  std::size_t b = first_gate_block;
  bool woke = false;
  bool wished = wish_ns == 0;
  while (done < n) {
    std::size_t const end = done + std::min(b, n - done);
    block(done, end);
    done = end;
    auto const elapsed = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - start).count());
    bool const projected_over = when == prefix_end::projected && elapsed >= budget_ns / 4 &&
                                static_cast<double>(elapsed) * static_cast<double>(n) >=
                                    static_cast<double>(budget_ns) * static_cast<double>(done);
    if (when == prefix_end::at_budget && !woke && elapsed >= budget_ns / 2 && n - done >= done) {
      woke = true;
      half();
    }
    bool const parallel = (projected_over || elapsed >= budget_ns) && done < n;
    if (!wished && !parallel && elapsed >= wish_ns / 4 &&
        static_cast<double>(elapsed) * static_cast<double>(n) >=
            static_cast<double>(wish_ns) * static_cast<double>(done)) {
      wished = true;
      wish();
    }
    if (parallel) {
      double const per_element = static_cast<double>(elapsed) / static_cast<double>(done);
      double const want = static_cast<double>(target_block_ns) / std::max(per_element, 1e-3);
      double const capped = std::clamp(want, 1.0, static_cast<double>(1U << 20));
      return {done, static_cast<std::size_t>(capped)};
    }
    b = b > std::numeric_limits<std::size_t>::max() / 2 ? b : b * 2;
  }
  return {n, 1};
}

}  // namespace fj::detail::algo
