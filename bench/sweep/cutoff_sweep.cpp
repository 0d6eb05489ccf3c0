// fj-sweep: seed 004's sequential-cutoff sweep, and the cost of one spawn next to oneTBB and OpenMP.
//
// Two recursive workloads are run with a sequential cutoff below which they recurse serially, for every
// cutoff of a list, by six implementations of the same algorithm:
//   serial    the serial projection (every spawn a plain call), the baseline of T/Ts at the same cutoff;
//   fj-task   forkjoin coroutine tasks, co_await fj::fork/call/join (continuation stealing), fj::lazy_pool;
//   fj-spawn  forkjoin plain functions, fj::scope spawn/sync (child stealing), fj::lazy_pool;
//   fj-invoke forkjoin plain functions, fj::parallel_invoke of the two calls (child stealing), fj::lazy_pool;
//   tbb       oneTBB tbb::task_group run/wait in a task_arena (when oneTBB was found);
//   omp       OpenMP omp task / taskwait in a parallel region (when OpenMP was found).
// Workloads: fib(n) (below the cutoff fib recurses as a plain function returning its value) and quicksort of
// random ints (std::sort below the cutoff; the partition of fj-bench's quicksort,
// bench/suite/workloads/quicksort/quicksort.hpp). Every answer is checked.
//
// First, "parallel loop": M tiny iterations written three ways, each run in a child process of its own so
// that its maximum resident set (wait4) is its alone: a loop of M spawns in one fj::scope (child stealing
// queues every iteration at once), the range split in halves with fj::scope, and split in halves with
// coroutine tasks. Then "deep recursion": a chain of D nested spawns (each level spawns the next and syncs),
// as plain functions with fj::scope and as coroutine tasks, on one worker with the system's default thread
// stack, each depth in a child process (whether it completed, its time and MRSS). Then "spawn cost": fib with
// no cutoff on 1 and on P workers: nanoseconds per spawn (time /
// number of internal nodes of the call tree, one spawn each) and T/Ts for each implementation.
//
// Repetitions are interleaved over every implementation and cutoff; medians are reported. Output: Markdown
// on stdout and in <out>/sweep.md, sweep.csv (one row per run), and plots/sweep-<workload>.png when gnuplot
// is installed. All runtimes live in one process and take turns: libomp's threads spin for 200 ms after a
// parallel region (its default KMP_BLOCKTIME; 1 ms made its fine-grained tasks hundreds of times slower
// here), so each OpenMP run is followed by a 250 ms pause, outside the timed region, before the next one.
//
//   fj-sweep [--scale quick|default] [--workers P] [--reps R] [--out DIR]

#include <forkjoin/forkjoin.hpp>

#include "fibonacci.hpp"
#include "quicksort.hpp"
#include "stopwatch.hpp"

#if FJS_HAVE_TBB
#include <tbb/task_group.h>

#include "teams/tbb_team.hpp"
#endif
#if FJS_HAVE_OMP
#include "teams/omp_team.hpp"
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <csignal>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// ---- fib(n): spawn n - 1, call n - 2; serial below the cutoff ----

[[gnu::noinline]] long fib_serial(int n) {
  if (n < 2) return n;
  return fib_serial(n - 1) + fib_serial(n - 2);
}

long fib_projection(int n, int cutoff) {
  if (n < cutoff) return fib_serial(n);
  return fib_projection(n - 1, cutoff) + fib_projection(n - 2, cutoff);
}

fj::task<long> fib_task(int n, int cutoff) {
  if (n < cutoff) co_return fib_serial(n);
  long a = 0;
  long b = 0;
  co_await fj::fork(&a, fib_task, n - 1, cutoff);
  co_await fj::call(&b, fib_task, n - 2, cutoff);
  co_await fj::join;
  co_return a + b;
}

long fib_spawn(int n, int cutoff) {
  if (n < cutoff) return fib_serial(n);
  long a = 0;
  fj::scope s;
  s.spawn(&a, fib_spawn, n - 1, cutoff);
  long const b = fib_spawn(n - 2, cutoff);
  s.sync();
  return a + b;
}

long fib_invoke(int n, int cutoff) {
  if (n < cutoff) return fib_serial(n);
  auto const [a, b] = fj::parallel_invoke([=] { return fib_invoke(n - 1, cutoff); },
                                          [=] { return fib_invoke(n - 2, cutoff); });
  return a + b;
}

#if FJS_HAVE_TBB
long fib_tbb(int n, int cutoff) {
  if (n < cutoff) return fib_serial(n);
  long a = 0;
  tbb::task_group g;
  g.run([&] { a = fib_tbb(n - 1, cutoff); });
  long const b = fib_tbb(n - 2, cutoff);
  g.wait();
  return a + b;
}
#endif

#if FJS_HAVE_OMP
long fib_omp(int n, int cutoff) {
  if (n < cutoff) return fib_serial(n);
  long a = 0;
#pragma omp task shared(a) firstprivate(n, cutoff)
  a = fib_omp(n - 1, cutoff);
  long const b = fib_omp(n - 2, cutoff);
#pragma omp taskwait
  return a + b;
}
#endif

// Spawns (internal nodes of the call tree) of fib(n) with this cutoff.
long fib_spawns(int n, int cutoff) {
  if (n < cutoff) return 0;
  return 1 + fib_spawns(n - 1, cutoff) + fib_spawns(n - 2, cutoff);
}

// ---- quicksort: spawn the lower part, call the upper; std::sort at or below the cutoff ----

using fjb::quicksort::partition_around_middle;

void sort_projection(int* first, int* last, std::ptrdiff_t cutoff) {
  if (last - first <= cutoff) {
    std::sort(first, last);
    return;
  }
  int* middle = partition_around_middle(first, last);
  sort_projection(first, middle, cutoff);
  sort_projection(middle + 1, last, cutoff);
}

fj::task<void> sort_task(int* first, int* last, std::ptrdiff_t cutoff) {
  if (last - first <= cutoff) {
    std::sort(first, last);
    co_return;
  }
  int* middle = partition_around_middle(first, last);
  co_await fj::fork(sort_task, first, middle, cutoff);
  co_await fj::call(sort_task, middle + 1, last, cutoff);
  co_await fj::join;
}

void sort_spawn(int* first, int* last, std::ptrdiff_t cutoff) {
  if (last - first <= cutoff) {
    std::sort(first, last);
    return;
  }
  int* middle = partition_around_middle(first, last);
  fj::scope s;
  s.spawn(sort_spawn, first, middle, cutoff);
  sort_spawn(middle + 1, last, cutoff);
  s.sync();
}

void sort_invoke(int* first, int* last, std::ptrdiff_t cutoff) {
  if (last - first <= cutoff) {
    std::sort(first, last);
    return;
  }
  int* middle = partition_around_middle(first, last);
  fj::parallel_invoke([=] { sort_invoke(first, middle, cutoff); },
                      [=] { sort_invoke(middle + 1, last, cutoff); });
}

#if FJS_HAVE_TBB
void sort_tbb(int* first, int* last, std::ptrdiff_t cutoff) {
  if (last - first <= cutoff) {
    std::sort(first, last);
    return;
  }
  int* middle = partition_around_middle(first, last);
  tbb::task_group g;
  g.run([=] { sort_tbb(first, middle, cutoff); });
  sort_tbb(middle + 1, last, cutoff);
  g.wait();
}
#endif

#if FJS_HAVE_OMP
void sort_omp(int* first, int* last, std::ptrdiff_t cutoff) {
  if (last - first <= cutoff) {
    std::sort(first, last);
    return;
  }
  int* middle = partition_around_middle(first, last);
#pragma omp task firstprivate(first, middle, cutoff)
  sort_omp(first, middle, cutoff);
  sort_omp(middle + 1, last, cutoff);
#pragma omp taskwait
}
#endif

// ---- a parallel loop of tiny iterations, three ways ----

void loop_body(std::vector<std::uint64_t>& out, std::size_t i) { out[i] = i * 0x9E3779B97F4A7C15ULL; }

void loop_of_spawns(std::vector<std::uint64_t>* out) {
  fj::scope s;
  for (std::size_t i = 0; i < out->size(); ++i) {
    s.spawn(loop_body, *out, std::size_t{i});  // a copy: an lvalue argument is kept by reference
  }
  s.sync();
}

void halves_spawn(std::vector<std::uint64_t>* out, std::size_t first, std::size_t last) {
  if (last - first <= 1) {
    if (first < last) loop_body(*out, first);
    return;
  }
  std::size_t const middle = first + (last - first) / 2;
  fj::scope s;
  s.spawn(halves_spawn, out, first, middle);
  halves_spawn(out, middle, last);
  s.sync();
}

fj::task<void> halves_task(std::vector<std::uint64_t>* out, std::size_t first, std::size_t last) {
  if (last - first <= 1) {
    if (first < last) loop_body(*out, first);
    co_return;
  }
  std::size_t const middle = first + (last - first) / 2;
  co_await fj::fork(halves_task, out, first, middle);
  co_await fj::call(halves_task, out, middle, last);
  co_await fj::join;
}

// ---- deep recursion: a chain of nested spawns ----

long chain_spawn(long depth) {
  if (depth == 0) return 0;
  long below = 0;
  fj::scope s;
  s.spawn(&below, chain_spawn, depth - 1);
  s.sync();
  return below + 1;
}

fj::task<long> chain_task(long depth) {
  if (depth == 0) co_return 0;
  long below = 0;
  co_await fj::fork(&below, chain_task, depth - 1);
  co_await fj::join;
  co_return below + 1;
}

struct loop_result {
  double seconds = 0;
  double max_rss_mib = 0;
  bool completed = true;
  std::string failure;  // how the child ended, when it did not complete
};

// Runs `body` (which returns its time, or a negative number for a wrong answer) in a child process: its time
// (through a pipe), its maximum resident set, and how it ended.
template <class Body>
loop_result in_child(const Body& body) {
  int fds[2];
  if (pipe(fds) != 0) {
    std::perror("fj-sweep: pipe");
    std::exit(1);
  }
  std::fflush(stdout);
  pid_t const child = fork();
  if (child < 0) {
    std::perror("fj-sweep: fork");
    std::exit(1);
  }
  if (child == 0) {
    close(fds[0]);
    rlimit const no_core{0, 0};
    (void)setrlimit(RLIMIT_CORE, &no_core);  // a deep chain may overflow the stack: no core file
    double const seconds = body();
    bool const written = write(fds[1], &seconds, sizeof seconds) == static_cast<ssize_t>(sizeof seconds);
    _exit(written ? 0 : 1);
  }
  close(fds[1]);
  loop_result result;
  bool const read_ok =
      read(fds[0], &result.seconds, sizeof result.seconds) == static_cast<ssize_t>(sizeof result.seconds);
  close(fds[0]);
  int status = 0;
  rusage usage{};
  if (wait4(child, &status, 0, &usage) != child) {
    std::perror("fj-sweep: wait4");
    std::exit(1);
  }
  result.max_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  if (WIFSIGNALED(status)) {
    result.completed = false;
    result.failure = std::string("killed by signal ") + std::to_string(WTERMSIG(status)) +
                     (WTERMSIG(status) == SIGSEGV ? " (SIGSEGV: stack overflow)" : "");
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !read_ok) {
    result.completed = false;
    result.failure = "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else if (result.seconds < 0) {
    result.completed = false;
    result.failure = "wrong answer";
  }
  return result;
}

// A chain of `depth` nested spawns on a one-worker lazy_pool, as plain functions or as tasks.
loop_result measure_chain(bool tasks, long depth) {
  return in_child([&] {
    fj::lazy_pool pool(1);
    long answer = -1;
    double const seconds = fjb::seconds_taken([&] {
      answer = tasks ? fj::sync_wait(pool, chain_task, depth) : fj::sync_wait(pool, chain_spawn, depth);
    });
    return answer == depth ? seconds : -1.0;
  });
}

// Runs one form of the loop in a child process: its time and maximum resident set.
loop_result measure_loop(int form, std::size_t iterations, unsigned workers) {
  loop_result const r = in_child([&] {
    std::vector<std::uint64_t> out(iterations, 0);
    double seconds = 0;
    if (form == 0) {
      seconds = fjb::seconds_taken([&] {
        for (std::size_t i = 0; i < iterations; ++i) loop_body(out, i);
      });
    } else {
      fj::lazy_pool pool(workers);
      (void)fj::sync_wait(pool, fib_spawn, 12, 2);
      seconds = fjb::seconds_taken([&] {
        if (form == 1) fj::sync_wait(pool, loop_of_spawns, &out);
        if (form == 2) fj::sync_wait(pool, halves_spawn, &out, std::size_t{0}, iterations);
        if (form == 3) fj::sync_wait(pool, halves_task, &out, std::size_t{0}, iterations);
      });
    }
    for (std::size_t i = 0; i < iterations; ++i) {
      if (out[i] != i * 0x9E3779B97F4A7C15ULL) return -1.0;
    }
    return seconds;
  });
  if (!r.completed) {
    std::fprintf(stderr, "fj-sweep: *** WRONG ANSWER *** or failure in the parallel loop (form %d): %s\n",
                 form, r.failure.c_str());
    std::exit(2);
  }
  return r;
}

// ---- implementations: each times one run of a body on `workers` workers ----

enum kind : int { serial_kind, task_kind, spawn_kind, invoke_kind, tbb_kind, omp_kind };

// One runtime with its workers started before anything is timed.
class runtime {
 public:
  virtual ~runtime() = default;
  [[nodiscard]] virtual double time(const std::function<void()>& body) = 0;
  [[nodiscard]] virtual fj::lazy_pool* pool() { return nullptr; }
};

class serial_runtime final : public runtime {
 public:
  double time(const std::function<void()>& body) override { return fjb::seconds_taken(body); }
};

class fj_runtime final : public runtime {
 public:
  explicit fj_runtime(unsigned workers) : pool_(workers) { (void)fj::sync_wait(pool_, fib_spawn, 12, 2); }
  double time(const std::function<void()>& body) override { return fjb::seconds_taken(body); }
  fj::lazy_pool* pool() override { return &pool_; }

 private:
  fj::lazy_pool pool_;
};

#if FJS_HAVE_TBB
class tbb_runtime final : public runtime {
 public:
  explicit tbb_runtime(unsigned workers) : team_(workers) {}
  double time(const std::function<void()>& body) override { return team_.time(body); }

 private:
  fjb::tbb_team team_;
};
#endif

#if FJS_HAVE_OMP
class omp_runtime final : public runtime {
 public:
  explicit omp_runtime(unsigned workers) : team_(workers) {}
  double time(const std::function<void()>& body) override {
    double const seconds = team_.time(body);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));  // let the team stop spinning
    return seconds;
  }

 private:
  fjb::omp_team team_;
};
#endif

struct implementation {
  const char* name;
  kind k;
};

std::vector<implementation> built_implementations() {
  std::vector<implementation> result{
      {"serial", serial_kind}, {"fj-task", task_kind}, {"fj-spawn", spawn_kind}, {"fj-invoke", invoke_kind}};
#if FJS_HAVE_TBB
  result.push_back({"tbb", tbb_kind});
#endif
#if FJS_HAVE_OMP
  result.push_back({"omp", omp_kind});
#endif
  return result;
}

// A runtime per (kind, workers), made once: pools and teams are started outside every timed region.
class runtimes {
 public:
  runtime& get(kind k, unsigned workers) {
    const unsigned key = static_cast<unsigned>(k) * 1000 + workers;
    if (k == tbb_kind) {
      // oneTBB applies the smallest max_allowed_parallelism of all live global_control objects, so a team
      // of one thread alive beside a team of two would cap the second at one: one TBB team at a time.
      std::erase_if(made_,
                    [&](const auto& entry) { return entry.first / 1000 == tbb_kind && entry.first != key; });
    }
    auto& slot = made_[key];
    if (!slot) slot = make(k, workers);
    return *slot;
  }

 private:
  static std::unique_ptr<runtime> make(kind k, unsigned workers) {
    switch (k) {
      case serial_kind: return std::make_unique<serial_runtime>();
      case task_kind:
      case spawn_kind:
      case invoke_kind: return std::make_unique<fj_runtime>(workers);
#if FJS_HAVE_TBB
      case tbb_kind: return std::make_unique<tbb_runtime>(workers);
#endif
#if FJS_HAVE_OMP
      case omp_kind: return std::make_unique<omp_runtime>(workers);
#endif
      default: break;
    }
    std::fprintf(stderr, "fj-sweep: internal error: implementation not built\n");
    std::abort();
  }
  std::map<unsigned, std::unique_ptr<runtime>> made_;
};

[[noreturn]] void wrong_answer(const std::string& what) {
  std::fprintf(stderr, "fj-sweep: *** WRONG ANSWER *** %s\n", what.c_str());
  std::exit(2);
}

double time_fib(runtimes& rt, kind k, unsigned workers, int n, int cutoff) {
  runtime& r = rt.get(k, workers);
  long answer = -1;
  double seconds = 0;
  switch (k) {
    case serial_kind: seconds = r.time([&] { answer = fib_projection(n, cutoff); }); break;
    case task_kind: seconds = r.time([&] { answer = fj::sync_wait(*r.pool(), fib_task, n, cutoff); }); break;
    case spawn_kind:
      seconds = r.time([&] { answer = fj::sync_wait(*r.pool(), fib_spawn, n, cutoff); });
      break;
    case invoke_kind:
      seconds = r.time([&] { answer = fj::sync_wait(*r.pool(), fib_invoke, n, cutoff); });
      break;
#if FJS_HAVE_TBB
    case tbb_kind: seconds = r.time([&] { answer = fib_tbb(n, cutoff); }); break;
#endif
#if FJS_HAVE_OMP
    case omp_kind: seconds = r.time([&] { answer = fib_omp(n, cutoff); }); break;
#endif
    default: break;
  }
  if (answer != fjb::fib::fibonacci(n)) {
    wrong_answer("fib(" + std::to_string(n) + ") = " + std::to_string(answer));
  }
  return seconds;
}

class sort_input {
 public:
  explicit sort_input(std::size_t count) : values_(count) {
    std::mt19937 random(4418);
    std::uniform_int_distribution<int> value(0, 1'000'000'000);
    for (auto& v : values_) v = value(random);
    sorted_ = values_;
    std::sort(sorted_.begin(), sorted_.end());
  }
  [[nodiscard]] std::vector<int> copy() const { return values_; }
  void check(const std::vector<int>& result) const {
    if (result != sorted_) wrong_answer("quicksort of " + std::to_string(values_.size()) + " ints");
  }
  [[nodiscard]] std::size_t size() const { return values_.size(); }

 private:
  std::vector<int> values_;
  std::vector<int> sorted_;
};

double time_sort(runtimes& rt, kind k, unsigned workers, const sort_input& input, std::ptrdiff_t cutoff) {
  runtime& r = rt.get(k, workers);
  std::vector<int> v = input.copy();
  int* const first = v.data();
  int* const last = v.data() + v.size();
  double seconds = 0;
  switch (k) {
    case serial_kind: seconds = r.time([&] { sort_projection(first, last, cutoff); }); break;
    case task_kind:
      seconds = r.time([&] { fj::sync_wait(*r.pool(), sort_task, first, last, cutoff); });
      break;
    case spawn_kind:
      seconds = r.time([&] { fj::sync_wait(*r.pool(), sort_spawn, first, last, cutoff); });
      break;
    case invoke_kind:
      seconds = r.time([&] { fj::sync_wait(*r.pool(), sort_invoke, first, last, cutoff); });
      break;
#if FJS_HAVE_TBB
    case tbb_kind: seconds = r.time([&] { sort_tbb(first, last, cutoff); }); break;
#endif
#if FJS_HAVE_OMP
    case omp_kind: seconds = r.time([&] { sort_omp(first, last, cutoff); }); break;
#endif
    default: break;
  }
  input.check(v);
  return seconds;
}

// ---- statistics and output ----

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t const m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

struct settings {
  std::string scale = "quick";
  unsigned workers = 2;
  int reps = 3;
  std::filesystem::path out = "results/sweep";
  std::size_t loop_iterations = 1'000'000;
  int cost_n = 29;               // fib for the spawn cost, no cutoff
  int fib_n = 29;                // fib for the sweep
  std::vector<int> fib_cutoffs;  // fib(n) with n below the cutoff is serial; 2 is no cutoff
  std::size_t sort_elements = 1'000'000;
  std::vector<std::ptrdiff_t> sort_cutoffs;
};

// One sweep's medians: [cutoff index][implementation index].
struct sweep_table {
  std::string workload;
  std::string parameters;
  std::vector<long long> cutoffs;
  std::vector<std::vector<std::vector<double>>> times;
};

std::string format_ms(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer,
                seconds < 0.01 ? "%.3f"
                : seconds < 1  ? "%.2f"
                               : "%.0f",
                seconds * 1e3);
  return buffer;
}

std::string format_ratio(double r) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, r < 10 ? "%.2f" : r < 100 ? "%.1f" : "%.0f", r);
  return buffer;
}

void print_sweep(std::ostream& md, const sweep_table& t, const std::vector<implementation>& impls,
                 unsigned workers) {
  md << "\n### " << t.workload << " (" << t.parameters << "), P = " << workers
     << ": median ms, and T/Ts against the serial projection at the same cutoff\n\n| cutoff |";
  for (const auto& impl : impls) md << ' ' << impl.name << " ms |";
  for (std::size_t i = 1; i < impls.size(); ++i) md << ' ' << impls[i].name << " T/Ts |";
  md << "\n|---|";
  for (std::size_t i = 0; i < 2 * impls.size() - 1; ++i) md << "---|";
  md << '\n';
  for (std::size_t c = 0; c < t.cutoffs.size(); ++c) {
    md << "| " << t.cutoffs[c] << " |";
    double const ts = median(t.times[c][0]);
    for (std::size_t i = 0; i < impls.size(); ++i) md << ' ' << format_ms(median(t.times[c][i])) << " |";
    for (std::size_t i = 1; i < impls.size(); ++i)
      md << ' ' << format_ratio(median(t.times[c][i]) / ts) << " |";
    md << '\n';
  }
}

const char* colour_of(const std::string& name) {
  if (name == "serial") return "#000000";
  if (name == "fj-task") return "#9467bd";
  if (name == "fj-spawn") return "#8c564b";
  if (name == "fj-invoke") return "#e377c2";
  if (name == "tbb") return "#1f77b4";
  return "#2ca02c";
}

// Time against cutoff, log-log, one line per implementation.
void plot_sweep(const std::filesystem::path& out, const sweep_table& t,
                const std::vector<implementation>& impls, unsigned workers) {
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) {
    std::fprintf(stderr, "fj-sweep: gnuplot not found (apt-get install gnuplot-nox): no plot for %s\n",
                 t.workload.c_str());
    return;
  }
  std::filesystem::create_directories(out / "plots");
  const std::filesystem::path script_file = out / "plots" / ("sweep-" + t.workload + ".gp");
  {
    std::ofstream script(script_file);
    for (std::size_t i = 0; i < impls.size(); ++i) {
      script << "$d" << i << " << EOD\n";
      for (std::size_t c = 0; c < t.cutoffs.size(); ++c) {
        script << t.cutoffs[c] << ' ' << median(t.times[c][i]) * 1e3 << '\n';
      }
      script << "EOD\n";
    }
    script << "set terminal pngcairo size 900,650 font 'sans,10'\n";
    script << "set output '" << (out / "plots" / ("sweep-" + t.workload + ".png")).string() << "'\n";
    script << "set title '" << t.workload << " (" << t.parameters << "), P = " << workers
           << ": median time against the sequential cutoff'\n";
    script << "set xlabel 'sequential cutoff'\nset ylabel 'time (ms)'\nset logscale xy\nset grid\n";
    script << "set key top right\nplot ";
    for (std::size_t i = 0; i < impls.size(); ++i) {
      script << (i ? ", " : "") << "$d" << i << " using 1:2 with linespoints lw 2 pt 7 lc rgb '"
             << colour_of(impls[i].name) << "' title '" << impls[i].name << "'";
    }
    script << '\n';
  }
  const std::string command = "gnuplot '" + script_file.string() + "'";
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "fj-sweep: warning: gnuplot failed on %s\n", script_file.c_str());
  }
}

int run(const settings& s) {
  const std::vector<implementation> impls = built_implementations();
  std::filesystem::create_directories(s.out);
  std::ofstream csv(s.out / "sweep.csv");
  csv << "section,workload,parameter,cutoff,implementation,workers,repetition,seconds\n";
  // Parallel loop, before any runtime starts a thread (the children are forked).
  const char* const loop_forms[] = {"serial loop", "fj-spawn, a loop of spawns in one scope",
                                    "fj-spawn, halves", "fj-task, halves"};
  std::vector<std::vector<loop_result>> loops(4);
  for (int rep = 0; rep < s.reps; ++rep) {
    for (int form = 0; form < 4; ++form) {
      loop_result const r = measure_loop(form, s.loop_iterations, s.workers);
      loops[static_cast<std::size_t>(form)].push_back(r);
      csv << "loop," << loop_forms[form] << ',' << s.loop_iterations << ",1,"
          << (form == 3 ? "fj-task"
              : form    ? "fj-spawn"
                        : "serial")
          << ',' << (form == 0 ? 1 : s.workers) << ',' << rep << ',' << r.seconds << '\n';
    }
  }
  // Deep recursion, also before any thread of this process starts.
  const long depths[] = {10'000, 100'000, 1'000'000};
  std::vector<std::pair<loop_result, loop_result>> chains;  // (fj-spawn, fj-task) per depth
  for (long depth : depths) {
    chains.emplace_back(measure_chain(false, depth), measure_chain(true, depth));
  }
  runtimes rt;

  // Spawn cost: fib with no cutoff on 1 and on P workers.
  std::vector<unsigned> cost_workers{1};
  if (s.workers > 1) cost_workers.push_back(s.workers);
  std::map<std::pair<std::size_t, unsigned>, std::vector<double>> cost;
  for (int rep = 0; rep < s.reps; ++rep) {
    for (std::size_t i = 0; i < impls.size(); ++i) {
      for (unsigned p : cost_workers) {
        if (impls[i].k == serial_kind && p != 1) continue;
        double const t = time_fib(rt, impls[i].k, p, s.cost_n, 2);
        cost[{i, p}].push_back(t);
        csv << "cost,fib," << s.cost_n << ",2," << impls[i].name << ',' << p << ',' << rep << ',' << t
            << '\n';
      }
    }
  }

  sweep_table fib_table{"fib", "n = " + std::to_string(s.fib_n), {}, {}};
  for (int c : s.fib_cutoffs) fib_table.cutoffs.push_back(c);
  fib_table.times.assign(s.fib_cutoffs.size(), std::vector<std::vector<double>>(impls.size()));
  const sort_input input(s.sort_elements);
  sweep_table sort_table{"quicksort", std::to_string(s.sort_elements) + " ints", {}, {}};
  for (auto c : s.sort_cutoffs) sort_table.cutoffs.push_back(c);
  sort_table.times.assign(s.sort_cutoffs.size(), std::vector<std::vector<double>>(impls.size()));

  for (int rep = 0; rep < s.reps; ++rep) {
    for (std::size_t c = 0; c < s.fib_cutoffs.size(); ++c) {
      for (std::size_t i = 0; i < impls.size(); ++i) {
        unsigned const p = impls[i].k == serial_kind ? 1 : s.workers;
        double const t = time_fib(rt, impls[i].k, p, s.fib_n, s.fib_cutoffs[c]);
        fib_table.times[c][i].push_back(t);
        csv << "sweep,fib," << s.fib_n << ',' << s.fib_cutoffs[c] << ',' << impls[i].name << ',' << p << ','
            << rep << ',' << t << '\n';
      }
    }
    for (std::size_t c = 0; c < s.sort_cutoffs.size(); ++c) {
      for (std::size_t i = 0; i < impls.size(); ++i) {
        unsigned const p = impls[i].k == serial_kind ? 1 : s.workers;
        double const t = time_sort(rt, impls[i].k, p, input, s.sort_cutoffs[c]);
        sort_table.times[c][i].push_back(t);
        csv << "sweep,quicksort," << s.sort_elements << ',' << s.sort_cutoffs[c] << ',' << impls[i].name
            << ',' << p << ',' << rep << ',' << t << '\n';
      }
    }
  }

  std::ostringstream md;
  md << "# Sequential-cutoff sweep (fj-sweep, scale " << s.scale << ", " << s.reps
     << " interleaved repetitions, medians)\n\n";
  md << "## A parallel loop of " << s.loop_iterations << " tiny iterations, P = " << s.workers
     << "\n\nEach form in a child process of its own: its maximum resident set (MRSS) is its alone. The "
        "iterations write one word each ("
     << s.loop_iterations * 8 / 1024 / 1024 << " MiB of output).\n\n";
  md << "| form | median ms | median MRSS MiB |\n|---|---|---|\n";
  for (int form = 0; form < 4; ++form) {
    std::vector<double> times;
    std::vector<double> rss;
    for (const auto& r : loops[static_cast<std::size_t>(form)]) {
      times.push_back(r.seconds);
      rss.push_back(r.max_rss_mib);
    }
    char mib[32];
    std::snprintf(mib, sizeof mib, "%.1f", median(rss));
    md << "| " << loop_forms[form] << " | " << format_ms(median(times)) << " | " << mib << " |\n";
  }
  md << "\n## Deep recursion: a chain of nested spawns, one worker, default thread stack\n\n"
        "Each level spawns the next and syncs (fj-spawn: the child runs on the worker's OS stack at the "
        "sync; "
        "fj-task: frames on the segmented stack). One run per depth, each in a child process.\n\n";
  md << "| depth | fj-spawn | fj-spawn MRSS MiB | fj-task | fj-task MRSS MiB |\n|---|---|---|---|---|\n";
  for (std::size_t d = 0; d < chains.size(); ++d) {
    auto cell = [](const loop_result& r) { return r.completed ? format_ms(r.seconds) + " ms" : r.failure; };
    char spawn_rss[32];
    char task_rss[32];
    std::snprintf(spawn_rss, sizeof spawn_rss, "%.1f", chains[d].first.max_rss_mib);
    std::snprintf(task_rss, sizeof task_rss, "%.1f", chains[d].second.max_rss_mib);
    md << "| " << depths[d] << " | " << cell(chains[d].first) << " | " << spawn_rss << " | "
       << cell(chains[d].second) << " | " << task_rss << " |\n";
  }
  md << "\n## Spawn cost: fib(" << s.cost_n << ") with no cutoff, " << fib_spawns(s.cost_n, 2)
     << " spawns\n\n";
  md << "ns per spawn = median time / spawns (one per internal node of the call tree); Ts is the serial fib "
        "that returns its value.\n\n";
  md << "| implementation | P | median ms | ns per spawn | T/Ts |\n|---|---|---|---|---|\n";
  double const spawns = static_cast<double>(fib_spawns(s.cost_n, 2));
  double const cost_ts = median(cost[{0, 1}]);
  for (std::size_t i = 0; i < impls.size(); ++i) {
    for (unsigned p : cost_workers) {
      auto const found = cost.find({i, p});
      if (found == cost.end()) continue;
      double const m = median(found->second);
      char ns[32];
      std::snprintf(ns, sizeof ns, "%.2f", m * 1e9 / spawns);
      md << "| " << impls[i].name << " | " << p << " | " << format_ms(m) << " | " << ns << " | "
         << format_ratio(m / cost_ts) << " |\n";
    }
  }
  md << "\n## Time against sequential cutoff\n";
  md << "\nfib: calls with n below the cutoff recurse serially (cutoff 2: none). quicksort: ranges of at "
        "most "
        "the cutoff are sorted by std::sort.\n";
  print_sweep(md, fib_table, impls, s.workers);
  print_sweep(md, sort_table, impls, s.workers);
  plot_sweep(s.out, fib_table, impls, s.workers);
  plot_sweep(s.out, sort_table, impls, s.workers);
  if (std::filesystem::exists(s.out / "plots" / "sweep-fib.png")) {
    md << "\n![fib](plots/sweep-fib.png)\n![quicksort](plots/sweep-quicksort.png)\n";
  }
  std::fputs(md.str().c_str(), stdout);
  std::ofstream(s.out / "sweep.md") << md.str();
  return 0;
}

constexpr const char* usage =
    "usage: fj-sweep [--scale quick|default] [--workers P] [--reps R] [--out DIR]\n"
    "  fib and quicksort against their sequential cutoff (serial, fj-task, fj-spawn, fj-invoke, tbb,\n"
    "  omp), and ns per spawn of fib with no cutoff. Defaults: --scale quick --workers 2 --reps 3\n"
    "  --out results/sweep.\n";

bool parse_whole(const char* text, long low, long high, long& value) {
  char* end = nullptr;
  value = std::strtol(text, &end, 10);
  return *text != '\0' && *end == '\0' && value >= low && value <= high;
}

}  // namespace

int main(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    std::string const arg = argv[i];
    bool const has_value = i + 1 < argc;
    long value = 0;
    if (arg == "--scale" && has_value) {
      s.scale = argv[++i];
      if (s.scale != "quick" && s.scale != "default") {
        std::fprintf(stderr, "fj-sweep: --scale expects quick or default, got '%s'\n", s.scale.c_str());
        return 2;
      }
    } else if (arg == "--workers" && has_value) {
      if (!parse_whole(argv[++i], 1, 256, value)) {
        std::fprintf(stderr, "fj-sweep: --workers expects a whole number from 1 to 256, got '%s'\n", argv[i]);
        return 2;
      }
      s.workers = static_cast<unsigned>(value);
    } else if (arg == "--reps" && has_value) {
      if (!parse_whole(argv[++i], 1, 1000, value)) {
        std::fprintf(stderr, "fj-sweep: --reps expects a whole number from 1 to 1000, got '%s'\n", argv[i]);
        return 2;
      }
      s.reps = static_cast<int>(value);
    } else if (arg == "--out" && has_value) {
      s.out = argv[++i];
    } else {
      std::fputs(usage, arg == "--help" ? stdout : stderr);
      return arg == "--help" ? 0 : 2;
    }
  }
  if (s.scale == "quick") {
    s.cost_n = 29;
    s.fib_n = 29;
    s.fib_cutoffs = {2, 5, 8, 11, 14, 17, 20};
    s.sort_elements = 1'000'000;
    s.sort_cutoffs = {16, 64, 256, 1024, 4096, 16384, 65536};
  } else {
    s.cost_n = 30;
    s.fib_n = 34;
    s.fib_cutoffs = {2, 5, 8, 11, 14, 17, 20, 23};
    s.sort_elements = 5'000'000;
    s.sort_cutoffs = {16, 64, 256, 1024, 4096, 16384, 65536, 262144};
    s.loop_iterations = 4'000'000;
  }
  return run(s);
}
