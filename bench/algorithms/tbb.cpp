// oneTBB's own algorithms (parallel_for, parallel_reduce, parallel_scan, parallel_sort) in a task_arena
// with the requested concurrency, with its default (auto) partitioner.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_scan.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <map>
#include <memory>

#include "kernels.hpp"

namespace fja {
namespace {

tbb::task_arena& arena(int workers) {
  static std::map<int, std::unique_ptr<tbb::task_arena>> arenas;
  auto& a = arenas[workers];
  if (!a) a = std::make_unique<tbb::task_arena>(workers);
  return *a;
}

using range = tbb::blocked_range<std::size_t>;

void scan_impl(std::span<const value> in, std::span<value> out, int w, bool inclusive) {
  arena(w).execute([&] {
    tbb::parallel_scan(
        range(0, in.size()), value{0},
        [&](const range& r, value sum, bool is_final) {
          for (std::size_t i = r.begin(); i < r.end(); ++i) {
            value const next = sum + in[i];
            if (is_final) out[i] = inclusive ? next : sum;
            sum = next;
          }
          return sum;
        },
        std::plus<>{});
  });
}

}  // namespace

kernels tbb_kernels() {
  kernels k;
  k.name = "oneTBB";
  k.for_each = [](std::span<value> xs, int w) {
    arena(w).execute([&] {
      tbb::parallel_for(range(0, xs.size()), [&](const range& r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) xs[i] = step(xs[i]);
      });
    });
  };
  k.transform = [](std::span<const value> in, std::span<value> out, int w) {
    arena(w).execute([&] {
      tbb::parallel_for(range(0, in.size()), [&](const range& r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) out[i] = step(in[i]);
      });
    });
  };
  k.reduce = [](std::span<const value> xs, int w) {
    return arena(w).execute([&] {
      return tbb::parallel_reduce(
          range(0, xs.size()), value{0},
          [&](const range& r, value acc) {
            for (std::size_t i = r.begin(); i < r.end(); ++i) acc += xs[i];
            return acc;
          },
          std::plus<>{});
    });
  };
  k.transform_reduce = [](std::span<const value> xs, int w) {
    return arena(w).execute([&] {
      return tbb::parallel_reduce(
          range(0, xs.size()), value{0},
          [&](const range& r, value acc) {
            for (std::size_t i = r.begin(); i < r.end(); ++i) acc += xs[i] * xs[i];
            return acc;
          },
          std::plus<>{});
    });
  };
  k.inclusive_scan = [](std::span<const value> in, std::span<value> out, int w) {
    scan_impl(in, out, w, true);
  };
  k.exclusive_scan = [](std::span<const value> in, std::span<value> out, int w) {
    scan_impl(in, out, w, false);
  };
  k.count_if = [](std::span<const value> xs, int w) {
    return arena(w).execute([&] {
      return tbb::parallel_reduce(
          range(0, xs.size()), std::ptrdiff_t{0},
          [&](const range& r, std::ptrdiff_t acc) {
            for (std::size_t i = r.begin(); i < r.end(); ++i) acc += counted(xs[i]) ? 1 : 0;
            return acc;
          },
          std::plus<>{});
    });
  };
  k.find = [](std::span<const value> xs, value target, int w) {
    // No parallel find in oneTBB: a parallel_for that skips chunks past the best match so far, as the
    // OpenMP find does. It does not cancel the group at a match: that would skip chunks before the match
    // that have not started yet (a wrong answer when they hold an earlier match; here, with one match, it
    // made the kernel an any_of that read about a third less than a find must).
    std::atomic<std::size_t> best{xs.size()};
    arena(w).execute([&] {
      tbb::parallel_for(range(0, xs.size()), [&](const range& r) {
        if (r.begin() >= best.load(std::memory_order_relaxed)) return;
        for (std::size_t i = r.begin(); i < r.end(); ++i) {
          if (xs[i] == target) {
            std::size_t seen = best.load(std::memory_order_relaxed);
            while (i < seen && !best.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
            }
            return;
          }
        }
      });
    });
    return best.load(std::memory_order_relaxed);
  };
  k.sort = [](std::span<key> xs, int w) {
    arena(w).execute([&] { tbb::parallel_sort(xs.begin(), xs.end()); });
  };
  return k;
}

}  // namespace fja
