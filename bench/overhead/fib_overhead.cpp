// fj-overhead: the cost of a fork. Runs recursive Fibonacci with no cutoff on the serial projection, on
// fj::unit_pool, and on fj::busy_pool and fj::lazy_pool with 1 and with 2 workers, interleaved round by round
// so that drift on a shared machine hits all of them alike, and prints medians, T1/Ts, T2/Ts and nanoseconds
// per fork.
//
// Two serial projections, both measured: `serial` returns its result (clang turns one of the two recursive
// calls into a loop: about 10 instructions a call) and is the Ts of T1/Ts; `serial-out` writes it through a
// pointer as the task does (`co_await fj::fork(&a, fib, n - 1)` projects to `fib(&a, n - 1)`), which is how
// libfork's benchmark writes its serial fib, so T1/Ts-out is the figure comparable with libfork's published
// and measured ratios.
//
//   fj-overhead [--n N] [--reps R] [--only serial|serial-out|unit|busy1|lazy1|busy2|lazy2]
// --only runs one variant once (used by scripts/callgrind-per-fork.sh to count instructions per fork).

#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

// Layout probe: scripts/ab-layouts.sh builds this file with FJ_BENCH_LAYOUT_PAD = 16, 32, ... bytes, which
// moves every function defined after this one by that much. Where the hot code falls relative to 64-byte
// lines alone moves fib and integrate by up to 12 % (docs/performance.md, "Measuring a change"), so a change
// is judged over several placements, not one.
#if defined(FJ_BENCH_LAYOUT_PAD) && FJ_BENCH_LAYOUT_PAD > 0
#define FJ_BENCH_STRINGIFY_VALUE(x) #x
#define FJ_BENCH_STRINGIFY(x) FJ_BENCH_STRINGIFY_VALUE(x)
[[gnu::used, gnu::noinline]] void layout_pad() {
  asm volatile(".skip " FJ_BENCH_STRINGIFY(FJ_BENCH_LAYOUT_PAD) ", 0x90");
}
#endif

[[gnu::noinline]] long fib_serial(int n) {
  if (n < 2) return n;
  return fib_serial(n - 1) + fib_serial(n - 2);
}

[[gnu::noinline]] void fib_serial_out(long* out, int n) {
  if (n < 2) {
    *out = n;
    return;
  }
  long a = 0;
  long b = 0;
  fib_serial_out(&a, n - 1);
  fib_serial_out(&b, n - 2);
  *out = a + b;
}

fj::task<long> fib(int n) {
  if (n < 2) co_return n;
  long a = 0;
  long b = 0;
  co_await fj::fork(&a, fib, n - 1);
  co_await fj::call(&b, fib, n - 2);
  co_await fj::join;
  co_return a + b;
}

// fib(n) by iteration: the expected answer, computed without recursion so that it costs nothing to measure.
long fib_expected(int n) {
  long a = 0;
  long b = 1;
  for (int i = 0; i < n; ++i) {
    long const next = a + b;
    a = b;
    b = next;
  }
  return a;
}

// Number of forks fib(n) performs: one per internal node of its call tree, which is fib(n + 1) - 1.
long forks_of(int n) { return fib_expected(n + 1) - 1; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t const m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

template <class F>
double seconds(F&& f, long expect) {
  auto const t0 = std::chrono::steady_clock::now();
  long const r = std::forward<F>(f)();
  auto const t1 = std::chrono::steady_clock::now();
  if (r != expect) {
    std::fprintf(stderr, "fj-overhead: WRONG ANSWER %ld, expected %ld\n", r, expect);
    std::exit(2);
  }
  return std::chrono::duration<double>(t1 - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int n = 36;
  int reps = 7;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string const arg = argv[i];
    if (arg == "--n" && i + 1 < argc) {
      n = std::atoi(argv[++i]);
    } else if (arg == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (arg == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(
          stderr,
          "usage: fj-overhead [--n N] [--reps R] [--only serial|serial-out|unit|busy1|lazy1|busy2|lazy2]\n");
      return arg == "--help" ? 0 : 1;
    }
  }
  long const expect = fib_expected(n);
  // Each measurement makes its own pool, warms it up (stacks and deques grow to size) and destroys it
  // afterwards: idle busy workers spin, and a pool left alive would steal CPU from the one being measured.
  // --only skips the warm-up so that instruction counts at two sizes differ by exactly the forks between
  // them.
  bool const warm_up = only.empty();
  struct variant {
    const char* name;
    std::function<double()> measure;
    std::vector<double> times;
  };
  auto with_pool = [&](auto make) {
    return [&, make] {
      auto pool = make();
      if (warm_up) (void)fj::sync_wait(*pool, fib, n > 5 ? n - 5 : n);
      return seconds([&] { return fj::sync_wait(*pool, fib, n); }, expect);
    };
  };
  std::vector<variant> variants = {
      {"serial", [&] { return seconds([&] { return fib_serial(n); }, expect); }, {}},
      {"serial-out",
       [&] {
         return seconds(
             [&] {
               long r = 0;
               fib_serial_out(&r, n);
               return r;
             },
             expect);
       },
       {}},
      {"unit", with_pool([] { return std::make_unique<fj::unit_pool>(); }), {}},
      {"busy1", with_pool([] { return std::make_unique<fj::busy_pool>(1); }), {}},
      {"lazy1", with_pool([] { return std::make_unique<fj::lazy_pool>(1); }), {}},
      {"busy2", with_pool([] { return std::make_unique<fj::busy_pool>(2); }), {}},
      {"lazy2", with_pool([] { return std::make_unique<fj::lazy_pool>(2); }), {}},
  };
  if (!only.empty()) {
    for (auto& v : variants) {
      if (only == v.name) {
        std::printf("%s fib(%d): %.4f s\n", v.name, n, v.measure());
        return 0;
      }
    }
    std::fprintf(stderr, "fj-overhead: unknown variant %s\n", only.c_str());
    return 1;
  }
  for (int r = 0; r < reps; ++r) {
    for (auto& v : variants) v.times.push_back(v.measure());
  }
  double const ts = median(variants[0].times);
  double const forks = static_cast<double>(forks_of(n));
  std::printf("fib(%d), no cutoff, %d interleaved repetitions, medians; %.0f forks\n", n, reps, forks);
  std::printf("%-8s %10s %10s %10s %12s\n", "variant", "median s", "min s", "T/Ts", "ns/fork");
  for (auto& v : variants) {
    double const m = median(v.times);
    double const mn = *std::min_element(v.times.begin(), v.times.end());
    std::printf("%-8s %10.4f %10.4f %10.2f %12.2f\n", v.name, m, mn, m / ts, m * 1e9 / forks);
  }
  auto med = [&](std::size_t i) { return median(variants[i].times); };
  double const ts_out = med(1);
  std::printf("busy_pool: T1/Ts = %.2f  T2/Ts = %.2f  T1/T2 = %.2f  T1/Ts-out = %.2f\n", med(3) / ts,
              med(5) / ts, med(3) / med(5), med(3) / ts_out);
  std::printf("lazy_pool: T1/Ts = %.2f  T2/Ts = %.2f  T1/T2 = %.2f  T1/Ts-out = %.2f\n", med(4) / ts,
              med(6) / ts, med(4) / med(6), med(4) / ts_out);
  std::printf("unit_pool: T1/Ts = %.2f  T1/Ts-out = %.2f\n", med(2) / ts, med(2) / ts_out);
  return 0;
}
