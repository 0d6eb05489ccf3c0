// fj-overhead: the cost of a fork. Runs a recursive workload with no cutoff on its serial projection, on
// fj::unit_pool, and on fj::busy_pool and fj::lazy_pool with 1 and with 2 workers, interleaved round by round
// so that drift on a shared machine hits all of them alike, and prints medians, T1/Ts, T2/Ts and nanoseconds
// per fork. Each pool runs the workload three times over: as coroutine tasks (fj::fork, continuation
// stealing), as plain functions with fj::scope (spawn/sync, child stealing: the variants named spawn-*) and
// as plain functions with fj::parallel_invoke (the join form of child stealing: invoke-*), so that the paths'
// costs print side by side. Two workloads, the two whose T1/Ts targets issues #2 and #22 set:
//   fib        Fibonacci, one int argument: the pure cost of fork, call, join and return;
//   integrate  the suite's adaptive quadrature (bench/suite/workloads/integrate): six double arguments, half
//              of the tasks leaves; instruction-bound, so its T1/Ts follows instructions per task.
//
// Two serial projections, both measured: `serial` returns its result (for fib clang turns one of the two
// recursive calls into a loop: about 10 instructions a call) and is the Ts of T1/Ts; `serial-out` writes it
// through a pointer as the task does (`co_await fj::fork(&a, fib, n - 1)` projects to `fib(&a, n - 1)`),
// which is how libfork's benchmark writes its serial fib, so fib's T1/Ts-out is the figure comparable with
// libfork's published and measured ratios. libfork's integrate compares with the returning serial version,
// as fj-bench does.
//
//   fj-overhead [--workload fib|integrate] [--n N] [--reps R]
//               [--only serial|serial-out|unit|busy1|lazy1|busy2|lazy2|spawn-unit|spawn-busy1|spawn-lazy1|
//                       spawn-busy2|spawn-lazy2|invoke-unit|invoke-busy1|invoke-lazy1|invoke-busy2|
//                       invoke-lazy2 | --forks]
// N is fib's argument (default 36) or integrate's upper bound (default 1000). --only runs one variant once,
// without warm-up, and prints "<variant> <workload>(<n>): <seconds> s"; --forks prints how many forks the
// workload makes (both used by scripts/callgrind-per-fork.sh, ab-overhead.sh and ab-layouts.sh).

#include <forkjoin/forkjoin.hpp>

#include "fibonacci.hpp"
#include "quadrature.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

// Layout probe: scripts/ab-layouts.sh builds this file with FJ_BENCH_LAYOUT_PAD = 16, 32, ... bytes, which
// moves every function defined after this one by that much. Where the hot code falls relative to 64-byte
// lines alone moves fib and integrate by several per cent (docs/performance.md, "Measuring a change"), so a
// change is judged over several placements, not one.
#if defined(FJ_BENCH_LAYOUT_PAD) && FJ_BENCH_LAYOUT_PAD > 0
#define FJ_BENCH_STRINGIFY_VALUE(x) #x
#define FJ_BENCH_STRINGIFY(x) FJ_BENCH_STRINGIFY_VALUE(x)
[[gnu::used, gnu::noinline]] void layout_pad() {
  asm volatile(".skip " FJ_BENCH_STRINGIFY(FJ_BENCH_LAYOUT_PAD) ", 0x90");
}
#endif

// ---- fib ----

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

// The same recursion as a plain function with child stealing: the spawned call is what a thief may take.
long fib_spawn(int n) {
  if (n < 2) return n;
  long a = 0;
  fj::scope s;
  s.spawn(&a, fib_spawn, n - 1);
  long const b = fib_spawn(n - 2);
  s.sync();
  return a + b;
}

// The same recursion with fj::parallel_invoke: both calls' types are known where the spawned one is popped.
long fib_invoke(int n) {
  if (n < 2) return n;
  auto const [a, b] =
      fj::parallel_invoke([n] { return fib_invoke(n - 1); }, [n] { return fib_invoke(n - 2); });
  return a + b;
}

using fjb::fib::fibonacci;

struct fib_workload {
  using result = long;
  static constexpr const char* name = "fib";
  static constexpr double default_n = 36;

  int n;

  // fib(60) takes hours with no cutoff; fib(92) is the last that fits in a long.
  [[nodiscard]] static bool valid(double arg) { return arg >= 0 && arg <= 60 && arg == std::floor(arg); }
  explicit fib_workload(double arg) : n(static_cast<int>(arg)) {}
  [[nodiscard]] std::string label() const { return "fib(" + std::to_string(n) + ")"; }
  // One fork per internal node of the call tree: fib(n + 1) - 1.
  [[nodiscard]] long forks() const { return fibonacci(n + 1) - 1; }
  [[nodiscard]] bool correct(long r) const { return r == fibonacci(n); }

  [[nodiscard]] long serial() const { return fib_serial(n); }
  [[nodiscard]] long serial_out() const {
    long r = 0;
    fib_serial_out(&r, n);
    return r;
  }
  template <class Pool>
  [[nodiscard]] long run(Pool& pool) const {
    return fj::sync_wait(pool, fib, n);
  }
  template <class Pool>
  void warm_up(Pool& pool) const {
    (void)fj::sync_wait(pool, fib, n > 5 ? n - 5 : n);
  }
  template <class Pool>
  [[nodiscard]] long run_plain(Pool& pool, bool invoke) const {
    return fj::sync_wait(pool, invoke ? fib_invoke : fib_spawn, n);
  }
  template <class Pool>
  void warm_up_plain(Pool& pool, bool invoke) const {
    (void)fj::sync_wait(pool, invoke ? fib_invoke : fib_spawn, n > 5 ? n - 5 : n);
  }
};

// ---- integrate (fj-bench's workload: bench/suite/workloads/integrate) ----

using fjb::integrate::converged;
using fjb::integrate::exact_integral;
using fjb::integrate::f;
using fjb::integrate::halve;

constexpr double integrate_epsilon = 1.0e-9;

[[gnu::noinline]] double area_serial(double x1, double y1, double x2, double y2, double area,
                                     double epsilon) {
  const auto [x0, y0, left, right] = halve(x1, y1, x2, y2);
  if (converged(left + right, area, epsilon)) return left + right;
  return area_serial(x1, y1, x0, y0, left, epsilon) + area_serial(x0, y0, x2, y2, right, epsilon);
}

[[gnu::noinline]] void area_serial_out(double* out, double x1, double y1, double x2, double y2, double area,
                                       double epsilon) {
  const auto [x0, y0, left, right] = halve(x1, y1, x2, y2);
  if (converged(left + right, area, epsilon)) {
    *out = left + right;
    return;
  }
  double left_area;
  double right_area;
  area_serial_out(&left_area, x1, y1, x0, y0, left, epsilon);
  area_serial_out(&right_area, x0, y0, x2, y2, right, epsilon);
  *out = left_area + right_area;
}

// As fj-bench's integrate (bench/suite/workloads/integrate/forkjoin.cpp).
fj::task<double> area_task(double x1, double y1, double x2, double y2, double area, double epsilon) {
  const auto [x0, y0, left, right] = halve(x1, y1, x2, y2);
  if (converged(left + right, area, epsilon)) co_return left + right;
  double left_area;
  double right_area;
  co_await fj::fork(&left_area, area_task, x1, y1, x0, y0, left, epsilon);
  co_await fj::call(&right_area, area_task, x0, y0, x2, y2, right, epsilon);
  co_await fj::join;
  co_return left_area + right_area;
}

// area_task as a plain function with fj::scope (child stealing).
double area_spawn(double x1, double y1, double x2, double y2, double area, double epsilon) {
  const auto [x0, y0, left, right] = halve(x1, y1, x2, y2);
  if (converged(left + right, area, epsilon)) return left + right;
  double left_area = 0;
  fj::scope s;
  s.spawn(&left_area, area_spawn, x1, y1, x0, y0, left, epsilon);
  double const right_area = area_spawn(x0, y0, x2, y2, right, epsilon);
  s.sync();
  return left_area + right_area;
}

// area_task with fj::parallel_invoke.
double area_invoke(double x1, double y1, double x2, double y2, double area, double epsilon) {
  const auto [x0, y0, left, right] = halve(x1, y1, x2, y2);
  if (converged(left + right, area, epsilon)) return left + right;
  // Init-captures: clang's analyzer misreads structured bindings captured by [=].
  auto const [left_area, right_area] = fj::parallel_invoke(
      [x1, y1, mx = x0, my = y0, l = left, epsilon] { return area_invoke(x1, y1, mx, my, l, epsilon); },
      [mx = x0, my = y0, x2, y2, r = right, epsilon] { return area_invoke(mx, my, x2, y2, r, epsilon); });
  return left_area + right_area;
}

// Internal nodes of the recursion (each forks once and calls once).
long area_forks(double x1, double y1, double x2, double y2, double area, double epsilon) {
  const auto [x0, y0, left, right] = halve(x1, y1, x2, y2);
  if (converged(left + right, area, epsilon)) return 0;
  return 1 + area_forks(x1, y1, x0, y0, left, epsilon) + area_forks(x0, y0, x2, y2, right, epsilon);
}

struct integrate_workload {
  using result = double;
  static constexpr const char* name = "integrate";
  static constexpr double default_n = 1000;

  double upper;

  // Past 1e5 the recursion takes minutes and the intervals approach the doubles' resolution.
  [[nodiscard]] static bool valid(double arg) { return arg > 0 && arg <= 1.0e5; }
  explicit integrate_workload(double arg) : upper(arg) {}
  [[nodiscard]] std::string label() const {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "integrate(%g)", upper);
    return buffer;
  }
  [[nodiscard]] long forks() const { return area_forks(0, f(0), upper, f(upper), 0, integrate_epsilon); }
  // Against the exact integral x^4/4 + x^2/2, with fj-bench's relative tolerance.
  [[nodiscard]] bool correct(double r) const {
    double const exact = exact_integral(upper);
    return std::abs(r - exact) <= 1e-9 * exact;
  }

  [[nodiscard]] double serial() const { return area_serial(0, f(0), upper, f(upper), 0, integrate_epsilon); }
  [[nodiscard]] double serial_out() const {
    double r = 0;
    area_serial_out(&r, 0, f(0), upper, f(upper), 0, integrate_epsilon);
    return r;
  }
  template <class Pool>
  [[nodiscard]] double run(Pool& pool) const {
    return fj::sync_wait(pool, area_task, 0.0, f(0), upper, f(upper), 0.0, integrate_epsilon);
  }
  template <class Pool>
  void warm_up(Pool& pool) const {
    double const u = upper / 4;
    (void)fj::sync_wait(pool, area_task, 0.0, f(0), u, f(u), 0.0, integrate_epsilon);
  }
  template <class Pool>
  [[nodiscard]] double run_plain(Pool& pool, bool invoke) const {
    return fj::sync_wait(pool, invoke ? area_invoke : area_spawn, 0.0, f(0), upper, f(upper), 0.0,
                         integrate_epsilon);
  }
  template <class Pool>
  void warm_up_plain(Pool& pool, bool invoke) const {
    double const u = upper / 4;
    (void)fj::sync_wait(pool, invoke ? area_invoke : area_spawn, 0.0, f(0), u, f(u), 0.0, integrate_epsilon);
  }
};

// ---- measuring ----

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t const m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

template <class Workload, class F>
double seconds(const Workload& w, F&& f) {
  auto const t0 = std::chrono::steady_clock::now();
  auto const r = std::forward<F>(f)();
  auto const t1 = std::chrono::steady_clock::now();
  if (!w.correct(r)) {
    std::fprintf(stderr, "fj-overhead: WRONG ANSWER for %s: %.17g\n", w.label().c_str(),
                 static_cast<double>(r));
    std::exit(2);
  }
  return std::chrono::duration<double>(t1 - t0).count();
}

template <class Workload>
int measure(const Workload& w, int reps, const std::string& only, bool count_forks) {
  if (count_forks) {
    std::printf("%ld\n", w.forks());
    return 0;
  }
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
      if (warm_up) w.warm_up(*pool);
      return seconds(w, [&] { return w.run(*pool); });
    };
  };
  auto plain_with_pool = [&](auto make, bool invoke) {
    return [&, make, invoke] {
      auto pool = make();
      if (warm_up) w.warm_up_plain(*pool, invoke);
      return seconds(w, [&] { return w.run_plain(*pool, invoke); });
    };
  };
  auto spawn_with_pool = [&](auto make) { return plain_with_pool(make, false); };
  auto invoke_with_pool = [&](auto make) { return plain_with_pool(make, true); };
  std::vector<variant> variants = {
      {"serial", [&] { return seconds(w, [&] { return w.serial(); }); }, {}},
      {"serial-out", [&] { return seconds(w, [&] { return w.serial_out(); }); }, {}},
      {"unit", with_pool([] { return std::make_unique<fj::unit_pool>(); }), {}},
      {"busy1", with_pool([] { return std::make_unique<fj::busy_pool>(1); }), {}},
      {"lazy1", with_pool([] { return std::make_unique<fj::lazy_pool>(1); }), {}},
      {"busy2", with_pool([] { return std::make_unique<fj::busy_pool>(2); }), {}},
      {"lazy2", with_pool([] { return std::make_unique<fj::lazy_pool>(2); }), {}},
      {"spawn-unit", spawn_with_pool([] { return std::make_unique<fj::unit_pool>(); }), {}},
      {"spawn-busy1", spawn_with_pool([] { return std::make_unique<fj::busy_pool>(1); }), {}},
      {"spawn-lazy1", spawn_with_pool([] { return std::make_unique<fj::lazy_pool>(1); }), {}},
      {"spawn-busy2", spawn_with_pool([] { return std::make_unique<fj::busy_pool>(2); }), {}},
      {"spawn-lazy2", spawn_with_pool([] { return std::make_unique<fj::lazy_pool>(2); }), {}},
      {"invoke-unit", invoke_with_pool([] { return std::make_unique<fj::unit_pool>(); }), {}},
      {"invoke-busy1", invoke_with_pool([] { return std::make_unique<fj::busy_pool>(1); }), {}},
      {"invoke-lazy1", invoke_with_pool([] { return std::make_unique<fj::lazy_pool>(1); }), {}},
      {"invoke-busy2", invoke_with_pool([] { return std::make_unique<fj::busy_pool>(2); }), {}},
      {"invoke-lazy2", invoke_with_pool([] { return std::make_unique<fj::lazy_pool>(2); }), {}},
  };
  if (!only.empty()) {
    for (auto& v : variants) {
      if (only == v.name) {
        std::printf("%s %s: %.4f s\n", v.name, w.label().c_str(), v.measure());
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
  double const forks = static_cast<double>(w.forks());
  std::printf("%s, no cutoff, %d interleaved repetitions, medians; %.0f forks\n", w.label().c_str(), reps,
              forks);
  std::printf("%-12s %10s %10s %10s %12s\n", "variant", "median s", "min s", "T/Ts", "ns/fork");
  for (auto& v : variants) {
    double const m = median(v.times);
    double const mn = *std::min_element(v.times.begin(), v.times.end());
    std::printf("%-12s %10.4f %10.4f %10.2f %12.2f\n", v.name, m, mn, m / ts, m * 1e9 / forks);
  }
  auto med = [&](std::size_t i) { return median(variants[i].times); };
  double const ts_out = med(1);
  std::printf("busy_pool: T1/Ts = %.2f  T2/Ts = %.2f  T1/T2 = %.2f  T1/Ts-out = %.2f\n", med(3) / ts,
              med(5) / ts, med(3) / med(5), med(3) / ts_out);
  std::printf("lazy_pool: T1/Ts = %.2f  T2/Ts = %.2f  T1/T2 = %.2f  T1/Ts-out = %.2f\n", med(4) / ts,
              med(6) / ts, med(4) / med(6), med(4) / ts_out);
  std::printf("unit_pool: T1/Ts = %.2f  T1/Ts-out = %.2f\n", med(2) / ts, med(2) / ts_out);
  std::printf("spawn (fj::scope, child stealing), a fork is one spawn:\n");
  std::printf("busy_pool: T1/Ts = %.2f  T2/Ts = %.2f  T1/T2 = %.2f  T1/Ts-out = %.2f\n", med(8) / ts,
              med(10) / ts, med(8) / med(10), med(8) / ts_out);
  std::printf("lazy_pool: T1/Ts = %.2f  T2/Ts = %.2f  T1/T2 = %.2f  T1/Ts-out = %.2f\n", med(9) / ts,
              med(11) / ts, med(9) / med(11), med(9) / ts_out);
  std::printf("unit_pool: T1/Ts = %.2f  T1/Ts-out = %.2f\n", med(7) / ts, med(7) / ts_out);
  std::printf("invoke (fj::parallel_invoke, child stealing), a fork is one spawned function:\n");
  std::printf("busy_pool: T1/Ts = %.2f  T2/Ts = %.2f  T1/T2 = %.2f  T1/Ts-out = %.2f\n", med(13) / ts,
              med(15) / ts, med(13) / med(15), med(13) / ts_out);
  std::printf("lazy_pool: T1/Ts = %.2f  T2/Ts = %.2f  T1/T2 = %.2f  T1/Ts-out = %.2f\n", med(14) / ts,
              med(16) / ts, med(14) / med(16), med(14) / ts_out);
  std::printf("unit_pool: T1/Ts = %.2f  T1/Ts-out = %.2f\n", med(12) / ts, med(12) / ts_out);
  return 0;
}

template <class Workload>
int measure_checked(double n, int reps, const std::string& only, bool count_forks) {
  if (std::isnan(n)) n = Workload::default_n;
  if (!Workload::valid(n)) {
    std::fprintf(stderr, "fj-overhead: --n %g is out of range for %s\n", n, Workload::name);
    return 1;
  }
  return measure(Workload(n), reps, only, count_forks);
}

constexpr const char* usage =
    "usage: fj-overhead [--workload fib|integrate] [--n N] [--reps R]\n"
    "                   [--only serial|serial-out|unit|busy1|lazy1|busy2|lazy2|spawn-unit|spawn-busy1|\n"
    "                           spawn-lazy1|spawn-busy2|spawn-lazy2|invoke-unit|invoke-busy1|\n"
    "                           invoke-lazy1|invoke-busy2|invoke-lazy2 | --forks]\n"
    "  N: fib's argument (default 36, a whole number up to 60) or integrate's upper bound (default 1000,\n"
    "  above 0, at most 1e5). --only runs one variant once; --forks prints the number of forks and exits.\n"
    "  spawn-*: the workload as plain functions with fj::scope (child stealing) on the same pools;\n"
    "  invoke-*: the same with fj::parallel_invoke.\n";

// The number in `text`, or nothing if it is not entirely a number.
bool parse_number(const std::string& text, double& value) {
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size() && std::isfinite(value);
}

}  // namespace

int main(int argc, char** argv) {
  std::string workload = "fib";
  double n = std::nan("");
  double reps = 7;
  std::string only;
  bool count_forks = false;
  for (int i = 1; i < argc; ++i) {
    std::string const arg = argv[i];
    bool const has_value = i + 1 < argc;
    if (arg == "--workload" && has_value) {
      workload = argv[++i];
    } else if (arg == "--n" && has_value) {
      if (!parse_number(argv[++i], n)) {
        std::fprintf(stderr, "fj-overhead: --n expects a number, got '%s'\n", argv[i]);
        return 1;
      }
    } else if (arg == "--reps" && has_value) {
      if (!parse_number(argv[++i], reps) || reps < 1 || reps > 1000 || reps != std::floor(reps)) {
        std::fprintf(stderr, "fj-overhead: --reps expects a whole number from 1 to 1000, got '%s'\n",
                     argv[i]);
        return 1;
      }
    } else if (arg == "--only" && has_value) {
      only = argv[++i];
    } else if (arg == "--forks") {
      count_forks = true;
    } else {
      std::fputs(usage, arg == "--help" ? stdout : stderr);
      return arg == "--help" ? 0 : 1;
    }
  }
  int const r = static_cast<int>(reps);
  if (workload == "fib") return measure_checked<fib_workload>(n, r, only, count_forks);
  if (workload == "integrate") return measure_checked<integrate_workload>(n, r, only, count_forks);
  std::fprintf(stderr, "fj-overhead: unknown workload '%s' (fib or integrate)\n", workload.c_str());
  return 1;
}
