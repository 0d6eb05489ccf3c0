// fj-algorithms: forkjoin's parallel algorithms (include/forkjoin/algorithm.hpp) against serial std::,
// oneTBB, OpenMP and std::execution::par, at several sizes and worker counts. Implementations run
// interleaved (one sample of each in turn, the rounds' orders balanced: slot_in_round), and each figure is
// the median of the samples. Every implementation's answer is checked against the serial one first. Each
// memory-bound case also times a bound, the simplest fast code with the case's access pattern, in the same
// loop. See bench/algorithms/README.md.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "kernels.hpp"

namespace {

using fja::kernels;
using fja::key;
using fja::value;
using clock_type = std::chrono::steady_clock;

struct options {
  std::vector<std::size_t> sizes{1'000, 100'000, 10'000'000};
  bool big = false;  // adds 10^8 for sort, reduce and the scans
  int reps = 6;      // one block of the rounds' design (slot_in_round) with all four peers and the bound
  std::vector<int> workers{1, 2};
  std::string out = "results/algorithms";
  std::vector<std::string> only;  // algorithms to run (all when empty)
  bool warm = false;              // leave large inputs in the caches between calls (see evict_caches)
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

[[noreturn]] void usage(int code) {
  std::printf(
      "usage: fj-algorithms [--sizes 1000,100000,10000000] [--big] [--reps 6] [--workers 1,2]\n"
      "                     [--algorithms for_each,transform,reduce,transform_reduce,inclusive_scan,\n"
      "                      exclusive_scan,count_if,find,sort,stable_sort] [--out results/algorithms] "
      "[--warm]\n"
      "  --big   also 10^8 elements for sort, reduce and the scans (about 5 GB of memory, minutes)\n"
      "  --warm  do not evict large inputs from the caches before each sample\n");
  std::exit(code);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string const a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage(2);
      return argv[++i];
    };
    if (a == "--sizes") {
      o.sizes.clear();
      for (auto const& s : split(next())) o.sizes.push_back(std::stoull(s));
    } else if (a == "--big") {
      o.big = true;
    } else if (a == "--reps") {
      o.reps = std::max(1, std::stoi(next()));
    } else if (a == "--workers") {
      o.workers.clear();
      for (auto const& s : split(next())) o.workers.push_back(std::max(1, std::stoi(s)));
    } else if (a == "--algorithms") {
      o.only = split(next());
    } else if (a == "--warm") {
      o.warm = true;
    } else if (a == "--out") {
      o.out = next();
    } else if (a == "--help" || a == "-h") {
      usage(0);
    } else {
      std::fprintf(stderr, "fj-algorithms: unknown argument %s\n", a.c_str());
      usage(2);
    }
  }
  return o;
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  std::size_t const m = xs.size() / 2;
  return xs.size() % 2 == 1 ? xs[m] : (xs[m - 1] + xs[m]) / 2;
}

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Before every sample of a case whose arrays hold at least this many bytes (unless --warm), the program
// reads an eviction buffer of twice the last-level cache, so that the sample reads its input from memory.
// On a machine whose last-level cache (300 MiB) was shared with other virtual machines, whether an 80 MB
// input was still in it after the previous call depended on what else ran, and a warm serial reduce of 10^7
// elements took 14.1 ms in one run and 3.6 ms in the next (docs/performance.md "Parallel algorithms").
constexpr std::size_t cold_bytes = std::size_t{16} << 20;

// Whether a case of n elements reads its input from memory in each sample (evicted before it): only there
// does a time over the bound's say anything about bandwidth.
bool read_from_memory(std::size_t n, bool warm) { return !warm && n * sizeof(value) >= cold_bytes; }

std::size_t last_level_cache_bytes() {
  long const l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return l3 > 0 ? static_cast<std::size_t>(l3) : std::size_t{64} << 20;
}

// Reads a buffer of twice the last-level cache (at most 1 GiB), written once when first used (a buffer never
// written would map every page to the kernel's one zero page, which stays cached).
void evict_caches() {
  static std::vector<value> const buffer(
      std::min(2 * last_level_cache_bytes(), std::size_t{1} << 30) / sizeof(value), 1);
  static volatile value sink = 0;
  sink = sink + std::accumulate(buffer.begin(), buffer.end(), value{0});
}

// The bound: for each memory-bound case, the simplest fast code with the case's access pattern over the
// case's own arrays, timed in the same loop as the implementations (README "The bound").

// A CPU hint for a spinning thread (lets the sibling hyperthread run).
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// P threads that run one job together: the caller runs part 0 and P - 1 helper threads, created once (outside
// every timed region), the others. Between the bound's samples the helpers sleep (a futex, through
// std::atomic::wait), so that they take no core from the implementations timed in between. arm(), before the
// bound's untimed reset and eviction, wakes them and makes them spin until disarm(): a job then starts
// without a wake-up, whose latency on this virtual machine is not memory traffic, and which static shares
// could not hide (the caller would wait for a late helper's whole share).
class team {
 public:
  explicit team(int threads) {
    for (int part = 1; part < threads; ++part) helpers_.emplace_back([this, part] { serve(part); });
  }
  team(const team&) = delete;
  team& operator=(const team&) = delete;
  ~team() {
    disarm();
    stop_.store(true, std::memory_order_relaxed);  // published by the release increment in wake()
    wake();
    for (auto& h : helpers_) h.join();
  }

  int size() const { return static_cast<int>(helpers_.size()) + 1; }

  void arm() {
    if (helpers_.empty() || armed_.load(std::memory_order_relaxed)) return;
    // Relaxed: the flag only lets the helpers' spin go on; no data is published through it.
    armed_.store(true, std::memory_order_relaxed);
    wake();
  }

  void disarm() { armed_.store(false, std::memory_order_relaxed); }  // the helpers go back to sleep

  // Runs f(part, parts) for every part of size() on its own thread; returns when all have returned. Arms the
  // team first if it is not armed (then the helpers' wake-up is inside the call).
  template <class F>
  void run(F& f) {
    if (helpers_.empty()) {
      f(0, 1);
      return;
    }
    arm();
    job_ = [](void* ctx, int part, int parts) { (*static_cast<F*>(ctx))(part, parts); };
    ctx_ = &f;
    // Relaxed: published by the release increment of go_ below, which each helper acquires before it
    // decrements pending_.
    pending_.store(static_cast<int>(helpers_.size()), std::memory_order_relaxed);
    // Release: pairs with the helpers' acquire load of go_, so that job_, ctx_, pending_ (and the caller's
    // reset of the arrays) are visible to them.
    go_.fetch_add(1, std::memory_order_release);
    f(0, size());
    // Acquire: pairs with each helper's release decrement, so that its part's writes are visible here and it
    // no longer reads job_/ctx_ when the next run() writes them. Spins: the caller has nothing else to do.
    while (pending_.load(std::memory_order_acquire) != 0) relax();
  }

 private:
  using job_fn = void (*)(void* ctx, int part, int parts);

  void wake() {
    // Release: pairs with the helpers' acquire wait/load of generation_ (stop_ is visible to them).
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
  }

  void serve(int part) {
    std::uint32_t generation = 0;  // generation_ starts at 0, and only wake() changes it
    std::uint32_t go = 0;          // the same for go_ and run()
    for (;;) {
      generation_.wait(generation, std::memory_order_acquire);   // pairs with wake()'s release increment
      generation = generation_.load(std::memory_order_acquire);  // the same pairing
      if (stop_.load(std::memory_order_relaxed)) return;
      // Armed: spin for jobs until disarmed.
      for (;;) {
        std::uint32_t seen = go_.load(std::memory_order_acquire);  // pairs with run()'s release increment
        while (seen == go && armed_.load(std::memory_order_relaxed)) {
          relax();
          seen = go_.load(std::memory_order_acquire);
        }
        if (seen == go) break;  // disarmed, no job: sleep
        go = seen;
        job_(ctx_, part, size());
        // Release: pairs with run()'s acquire load of pending_ (this part's writes, and the end of its reads
        // of job_ and ctx_, happen before the caller returns from run()).
        pending_.fetch_sub(1, std::memory_order_release);
      }
    }
  }

  std::vector<std::thread> helpers_;
  job_fn job_ = nullptr;  // written by the caller before a job starts, read by the helpers after it
  void* ctx_ = nullptr;
  std::atomic<std::uint32_t> generation_{0};  // +1 per wake(); sleeping helpers wait on it
  std::atomic<std::uint32_t> go_{0};          // +1 per job; armed helpers spin on it
  std::atomic<int> pending_{0};               // helpers that have not finished the current job
  std::atomic<bool> armed_{false};            // armed helpers spin; disarmed ones sleep
  std::atomic<bool> stop_{false};             // set once, by the destructor
};

// [lo, hi) of part `part` of `parts` of n elements: static contiguous shares, split at multiples of 8
// elements (one 64-byte cache line) so that no line is written by two threads.
struct share {
  std::size_t lo;
  std::size_t hi;
};
share share_of(std::size_t n, int part, int parts) {
  auto const at = [&](int p) {
    std::size_t const lines = (n + 7) / 8;
    return std::min(n, 8 * (lines * static_cast<std::size_t>(p) / static_cast<std::size_t>(parts)));
  };
  return {at(part), at(part + 1)};
}

// Read-only bound (reduce, transform_reduce, count_if, find): the sum of xs, each thread its share, in a
// plain loop: clang-19 vectorises it with two vector accumulators (four independent sums), so that the adds
// do not wait for each other. (An explicit array of scalar accumulators was not vectorised.)
value bound_read(team& t, std::span<const value> xs) {
  struct alignas(64) partial {
    value sum = 0;
  };
  std::vector<partial> partials(static_cast<std::size_t>(t.size()));
  auto part = [&](int p, int parts) {
    auto const [lo, hi] = share_of(xs.size(), p, parts);
    value s = 0;
    for (std::size_t i = lo; i < hi; ++i) s += xs[i];
    partials[static_cast<std::size_t>(p)].sum = s;
  };
  t.run(part);
  value sum = 0;
  for (auto const& p : partials) sum += p.sum;
  return sum;
}

// Read-one-write-another bound (transform, inclusive_scan, exclusive_scan): out = in + 1, each thread its
// share; one read of in and one write of out, a scan's least traffic. A loop, not memcpy, so that the stores
// are ordinary ones, as the implementations' are.
void bound_stream(team& t, std::span<const value> in, std::span<value> out) {
  auto part = [&](int p, int parts) {
    auto const [lo, hi] = share_of(in.size(), p, parts);
    for (std::size_t i = lo; i < hi; ++i) out[i] = in[i] + 1;
  };
  t.run(part);
}

// In-place bound (for_each): x = x + 1, each thread its share.
void bound_in_place(team& t, std::span<value> xs) {
  auto part = [&](int p, int parts) {
    auto const [lo, hi] = share_of(xs.size(), p, parts);
    for (std::size_t i = lo; i < hi; ++i) xs[i] += 1;
  };
  t.run(part);
}

// One benchmarked case: how to run one implementation on it (false: the implementation lacks it), how many
// bytes one call reads and writes (0: not memory-bound), whether a call needs fresh input, and its bound.
struct bench_case {
  std::string algorithm;
  std::string input;
  std::size_t n;
  double bytes;
  // Runs implementation k once with `workers`; returns false when k lacks the algorithm. `check` compares the
  // answer with the serial one (first call only).
  std::function<bool(const kernels& k, int workers, bool check, bool& ok)> run;
  // Restores the input before a call that changes it (not timed); `checked`: for the checked first call.
  std::function<void(bool checked)> reset;
  bool resets_each_call;
  // Runs the case's bound once on a team (empty: the case has none); `check` checks what the bound computed
  // (first call only), so that a bound that skipped work fails the program as a wrong answer does.
  std::function<void(team& t, bool check, bool& ok)> bound;
};

struct row {
  std::string algorithm;
  std::string input;
  std::size_t n;
  int workers;
  std::string impl;
  double seconds;     // median per call; < 0: not available
  double speedup;     // serial median / this median
  double gbps;        // bytes per second / 1e9, 0 when not memory-bound
  double over_bound;  // this median / the bound's median (same case and P); 0 when the case has no bound
  // forkjoin's row only, against the best parallel peer (by median): the median over the rounds of the
  // ratio of forkjoin's sample to that peer's in the same round, and in how many rounds forkjoin's was the
  // faster; 0 and 0 of 0 when there is no peer.
  double paired = 0;
  std::size_t faster_rounds = 0;
  std::size_t rounds = 0;
  std::vector<double> samples{};  // seconds per call, one per round in round order (algorithms_samples.csv)
};

struct data {
  std::vector<value> in;
  std::vector<value> work;
  std::vector<value> out;
  std::vector<key> keys;
  std::vector<key> sorted_keys;
  std::vector<key> key_work;
  // More random inputs for the timed samples of the random sorts, taken in turn after `keys` (see
  // make_cases).
  std::vector<std::vector<key>> more_keys;
  std::size_t next_keys = 0;
};

// The random sorts' inputs at size n: up to 16 at small sizes (at most 2^22 keys in all). Sorting the same
// 1000 keys again and again trains the branch predictor on them: std::sort then took 7.6 us instead of 28.5,
// and branchy code gains more from that than branchless code; 16 inputs in turn were enough to undo it.
std::size_t random_key_sets(std::size_t n) {
  return std::clamp<std::size_t>((std::size_t{1} << 22) / std::max<std::size_t>(n, 1), 1, 16);
}

bool is_big_case(const std::string& algorithm) {
  return algorithm == "sort" || algorithm == "reduce" || algorithm == "inclusive_scan" ||
         algorithm == "exclusive_scan";
}

// The cases at size n; `big` (10^8 elements) keeps only sort, reduce and the scans, and allocates only what
// they need (about 5 GB for all of them).
std::vector<bench_case> make_cases(data& d, std::size_t n, const options& o, bool big) {
  auto want = [&](const std::string& name) {
    if (big && !is_big_case(name)) return false;
    return o.only.empty() || std::find(o.only.begin(), o.only.end(), name) != o.only.end();
  };
  bool const sorts = want("sort") || want("stable_sort");
  std::mt19937_64 rng(0x5eed + n);
  d.in.resize(n);
  for (auto& x : d.in) x = rng() % 2001;
  d.work = d.in;
  d.out.assign(n, 0);
  if (sorts) {
    d.keys.resize(n);
    for (auto& k : d.keys) k = static_cast<key>(rng());
    d.sorted_keys = d.keys;
    std::sort(d.sorted_keys.begin(), d.sorted_keys.end());
    d.key_work = d.keys;
    d.more_keys.assign(random_key_sets(n) - 1, std::vector<key>(n));
    for (auto& set : d.more_keys) {
      for (auto& k : set) k = static_cast<key>(rng());
    }
    d.next_keys = 0;
  }

  std::vector<bench_case> cases;
  double const v = sizeof(value);
  auto reset_work = [&d](bool) { std::copy(d.in.begin(), d.in.end(), d.work.begin()); };
  auto no_reset = [](bool) {};
  // The bounds over the arrays the cases use (d's vectors are not resized after this point).
  auto read_bound = [&d](std::size_t count, bool from_work) {
    return [&d, count, from_work](team& t, bool check, bool& ok) {
      std::span<const value> const xs(from_work ? d.work.data() : d.in.data(), count);
      static volatile value sink = 0;  // the sum is used, so that it is computed even when not checked
      value const sum = bound_read(t, xs);
      sink = sink + sum;
      if (check) ok = sum == std::accumulate(xs.begin(), xs.end(), value{0});
    };
  };
  auto stream_bound = [&d](team& t, bool check, bool& ok) {
    bound_stream(t, d.in, d.out);
    if (check) {
      ok = std::equal(d.in.begin(), d.in.end(), d.out.begin(), [](value x, value y) { return y == x + 1; });
    }
  };
  auto in_place_bound = [&d](team& t, bool check, bool& ok) {
    bound_in_place(t, d.work);
    if (check) {
      ok = std::equal(d.in.begin(), d.in.end(), d.work.begin(), [](value x, value y) { return y == x + 1; });
    }
  };
  if (want("for_each")) {
    std::vector<value> expected = d.in;
    for (auto& x : expected) x = fja::step(x);
    cases.push_back({"for_each", "x = 3x + 1", n, 2 * v * static_cast<double>(n),
                     [&d, expected](const kernels& k, int w, bool check, bool& ok) {
                       if (k.for_each == nullptr) return false;
                       k.for_each(d.work, w);
                       if (check) ok = d.work == expected;
                       return true;
                     },
                     reset_work, false, in_place_bound});
  }
  if (want("transform")) {
    cases.push_back({"transform", "3x + 1", n, 2 * v * static_cast<double>(n),
                     [&d](const kernels& k, int w, bool check, bool& ok) {
                       if (k.transform == nullptr) return false;
                       k.transform(d.in, d.out, w);
                       if (check) {
                         ok = std::equal(d.in.begin(), d.in.end(), d.out.begin(),
                                         [](value x, value y) { return fja::step(x) == y; });
                       }
                       return true;
                     },
                     no_reset, false, stream_bound});
  }
  value const sum = std::accumulate(d.in.begin(), d.in.end(), value{0});
  value squares = 0;
  for (value x : d.in) squares += x * x;
  if (want("reduce")) {
    cases.push_back({"reduce", "sum", n, v * static_cast<double>(n),
                     [&d, sum](const kernels& k, int w, bool check, bool& ok) {
                       if (k.reduce == nullptr) return false;
                       value const r = k.reduce(d.in, w);
                       if (check) ok = r == sum;
                       return true;
                     },
                     no_reset, false, read_bound(n, false)});
  }
  if (want("transform_reduce")) {
    cases.push_back({"transform_reduce", "sum of squares", n, v * static_cast<double>(n),
                     [&d, squares](const kernels& k, int w, bool check, bool& ok) {
                       if (k.transform_reduce == nullptr) return false;
                       value const r = k.transform_reduce(d.in, w);
                       if (check) ok = r == squares;
                       return true;
                     },
                     no_reset, false, read_bound(n, false)});
  }
  for (bool inclusive : {true, false}) {
    std::string const name = inclusive ? "inclusive_scan" : "exclusive_scan";
    if (!want(name)) continue;
    std::vector<value> expected(n);
    if (inclusive) {
      std::inclusive_scan(d.in.begin(), d.in.end(), expected.begin());
    } else {
      std::exclusive_scan(d.in.begin(), d.in.end(), expected.begin(), value{0});
    }
    cases.push_back({name, "sum", n, 2 * v * static_cast<double>(n),
                     [&d, inclusive, expected](const kernels& k, int w, bool check, bool& ok) {
                       auto fn = inclusive ? k.inclusive_scan : k.exclusive_scan;
                       if (fn == nullptr) return false;
                       fn(d.in, d.out, w);
                       if (check) ok = d.out == expected;
                       return true;
                     },
                     no_reset, false, stream_bound});
  }
  if (want("count_if")) {
    auto const count = std::count_if(d.in.begin(), d.in.end(), fja::counted);
    cases.push_back({"count_if", "x % 3 == 0", n, v * static_cast<double>(n),
                     [&d, count](const kernels& k, int w, bool check, bool& ok) {
                       if (k.count_if == nullptr) return false;
                       auto const r = k.count_if(d.in, w);
                       if (check) ok = r == count;
                       return true;
                     },
                     no_reset, false, read_bound(n, false)});
  }
  if (want("find")) {
    // One match, three quarters of the way: most of the range must be searched.
    std::size_t const at = n * 3 / 4;
    constexpr value target = 1'000'000;
    cases.push_back({"find", "one match at 3n/4", n, v * 0.75 * static_cast<double>(n),
                     [&d, at](const kernels& k, int w, bool check, bool& ok) {
                       if (k.find == nullptr) return false;
                       d.work[at] = target;
                       std::size_t const r = k.find(d.work, target, w);
                       if (check) ok = r == at;
                       return true;
                     },
                     no_reset, false, read_bound(at + 1, true)});
  }
  for (bool presorted : {false, true}) {
    for (bool stable : {false, true}) {
      std::string const name = stable ? "stable_sort" : "sort";
      if (!want(name)) continue;
      const std::vector<key>& input = presorted ? d.sorted_keys : d.keys;
      cases.push_back({name, presorted ? "int32, presorted" : "int32, random", n, 0,
                       [&d, stable](const kernels& k, int w, bool check, bool& ok) {
                         auto fn = stable ? k.stable_sort : k.sort;
                         if (fn == nullptr) return false;
                         fn(d.key_work, w);
                         if (check) ok = d.key_work == d.sorted_keys;
                         return true;
                       },
                       [&d, &input, presorted](bool checked) {
                         // The checked call sorts `input`, whose sorted copy is known; the timed ones of
                         // the random case take the inputs in turn (random_key_sets).
                         const std::vector<key>* from = &input;
                         std::size_t const sets = d.more_keys.size() + 1;
                         if (!presorted && !checked) {
                           std::size_t const set = d.next_keys++ % sets;
                           if (set > 0) from = &d.more_keys[set - 1];
                         }
                         std::copy(from->begin(), from->end(), d.key_work.begin());
                       },
                       true, nullptr});
    }
  }
  return cases;
}

// Which slot runs j-th in round r, for `slots` slots: a Williams design. Round 0 runs 0, 1, slots - 1, 2,
// slots - 2, ...; round r adds r to each (mod slots); with an odd number of slots, every other block of
// `slots` rounds runs its rounds backwards. Over every `slots` rounds (2 x slots when odd) each slot then
// runs right after each other one equally often. Starting each round one slot further on in a fixed cyclic
// order would not do that: every slot would always follow the same one.
std::size_t slot_in_round(std::size_t r, std::size_t j, std::size_t slots) {
  if (slots % 2 == 1 && (r / slots) % 2 == 1) j = slots - 1 - j;
  std::size_t const base = j % 2 == 1 ? (j + 1) / 2 : (slots - j / 2) % slots;
  return (base + r) % slots;
}

// Whether one block of slot_in_round's rounds runs every slot once per round and each slot right after each
// other one equally often: checked at start-up, so that an edit that breaks the design fails the program.
bool design_is_balanced(std::size_t slots) {
  std::size_t const rounds = slots % 2 == 1 ? 2 * slots : slots;
  std::vector<std::size_t> follows(slots * slots, 0);
  for (std::size_t r = 0; r < rounds; ++r) {
    std::vector<bool> seen(slots, false);
    for (std::size_t j = 0; j < slots; ++j) {
      std::size_t const k = slot_in_round(r, j, slots);
      if (k >= slots || seen[k]) return false;
      seen[k] = true;
      if (j > 0) ++follows[slot_in_round(r, j - 1, slots) * slots + k];
    }
  }
  std::size_t const each = slots % 2 == 1 ? 2 : 1;
  for (std::size_t a = 0; a < slots; ++a) {
    for (std::size_t b = 0; b < slots; ++b) {
      if (a != b && follows[a * slots + b] != each) return false;
    }
  }
  return true;
}

std::string format_time(double s) {
  char buf[64];
  if (s < 0) return "—";
  if (s < 1e-5) {
    std::snprintf(buf, sizeof buf, "%.2f µs", s * 1e6);  // 10^3 elements take tenths of a microsecond
  } else if (s < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.1f µs", s * 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  }
  return buf;
}

// The 1-minute load average, to label timings taken on a busy machine; negative if unknown.
double load_average() {
  std::ifstream in("/proc/loadavg");
  double l = -1;
  in >> l;
  return l;
}

// Rows come in groups, one group per case and worker count: one row per implementation, in the order of
// `impls` (serial std:: first, forkjoin second, then the peers), and last the bound's row.
struct group {
  const row* first;
  std::size_t impls;  // implementation rows; the bound's row follows them
  const row& serial() const { return first[0]; }
  const row& forkjoin() const { return first[1]; }
  const row& bound() const { return first[impls]; }
  // The fastest parallel peer (neither serial std::, forkjoin nor the bound); nullptr if none has the case.
  const row* best_peer() const {
    const row* best = nullptr;
    for (std::size_t k = 2; k < impls; ++k) {
      if (first[k].seconds > 0 && (best == nullptr || first[k].seconds < best->seconds)) best = &first[k];
    }
    return best;
  }
};

// Fills forkjoin's paired figures (row::paired) for the group that starts at rows[first]. The samples of one
// round were taken one after another, so a change of the machine's speed between rounds (other tenants, the
// memory's state) moves both alike, and the per-round ratio cancels it where the ratio of the medians may
// not; the count of rounds forkjoin won says whether a ratio near 1 is a tie (about half) or a consistent
// difference.
void pair_with_best_peer(std::vector<row>& rows, std::size_t first, std::size_t impls) {
  group const g{&rows[first], impls};
  const row* best = g.best_peer();
  if (best == nullptr || g.forkjoin().seconds <= 0) return;
  auto const& fj = g.forkjoin().samples;
  auto const& peer = best->samples;
  if (fj.size() != peer.size() || fj.empty()) return;
  std::vector<double> ratios;
  std::size_t faster = 0;
  for (std::size_t r = 0; r < fj.size(); ++r) {
    ratios.push_back(fj[r] / peer[r]);
    if (fj[r] < peer[r]) ++faster;
  }
  row& out = rows[first + 1];
  out.paired = median(ratios);
  out.faster_rounds = faster;
  out.rounds = fj.size();
}

// forkjoin's paired figures as the summary and algorithms.md show them ("1.02 (10/24)"); "—" without a peer.
std::string format_paired(const row& fj) {
  if (fj.rounds == 0) return "—";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f (%zu/%zu)", fj.paired, fj.faster_rounds, fj.rounds);
  return buf;
}

// The summary the final measurement is read from: per case and worker count, forkjoin's median next to the
// best parallel peer's and their ratio, forkjoin's over serial std::'s (the small-input target: at most 1.2
// at 10^3 elements), and for memory-bound cases the bound's median, forkjoin's over it (the bandwidth target:
// at most 1.1 at 10^7 and 10^8 elements for reduce and the scans) and both GB/s. fj/bound is shown only for
// the cases read from memory (evicted before each sample): in the caches it says nothing about bandwidth.
void print_summary(const std::vector<row>& rows, std::size_t impls, bool warm) {
  std::printf(
      "\nsummary: fj/best = forkjoin's median over the best parallel peer's (below 1: forkjoin faster); "
      "paired = the median of the\nper-round ratios to that peer (fj won in k of n rounds); "
      "fj/serial = over serial std::'s;\n"
      "fj/bound = over the bound's (same access pattern, same arrays and cache state; README \"The "
      "bound\")\n");
  std::printf("%-17s %-18s %10s %2s %10s %10s %-20s %7s %-13s %9s %10s %8s  %s\n", "algorithm", "input", "n",
              "P", "forkjoin", "best peer", "(which)", "fj/best", "paired (won)", "fj/serial", "bound",
              "fj/bound", "GB/s fj, bound");
  for (std::size_t i = 0; i + impls + 1 <= rows.size(); i += impls + 1) {
    group const g{&rows[i], impls};
    row const& fj = g.forkjoin();
    const row* best = g.best_peer();
    char ratio[32] = "—";
    if (best != nullptr && fj.seconds > 0)
      std::snprintf(ratio, sizeof ratio, "%.2f", fj.seconds / best->seconds);
    char of_serial[32] = "—";
    if (g.serial().seconds > 0 && fj.seconds > 0)
      std::snprintf(of_serial, sizeof of_serial, "%.2f", fj.seconds / g.serial().seconds);
    char of_bound[32] = "—";
    char gbps[48] = "";
    std::string bound_time = "—";
    bool const from_memory = read_from_memory(fj.n, warm);
    if (fj.over_bound > 0 && from_memory) {
      std::snprintf(of_bound, sizeof of_bound, "%.2f", fj.over_bound);
      bound_time = format_time(g.bound().seconds);
    }
    if (fj.gbps > 0 && g.bound().gbps > 0 && from_memory) {
      std::snprintf(gbps, sizeof gbps, "%.2f, %.2f", fj.gbps, g.bound().gbps);
    } else if (fj.gbps > 0) {
      std::snprintf(gbps, sizeof gbps, "%.2f", fj.gbps);
    }
    std::printf("%-17s %-18s %10zu %2d %10s %10s %-20s %7s %-13s %9s %10s %8s  %s\n", fj.algorithm.c_str(),
                fj.input.c_str(), fj.n, fj.workers, format_time(fj.seconds).c_str(),
                best != nullptr ? format_time(best->seconds).c_str() : "—",
                best != nullptr ? best->impl.c_str() : "—", ratio, format_paired(fj).c_str(), of_serial,
                bound_time.c_str(), of_bound, gbps);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // libomp's threads spin for 200 ms after a parallel region by default, which would steal the cores from
  // the implementation measured next: make them sleep at once (unless the user chose otherwise).
  setenv("KMP_BLOCKTIME", "0", 0);
  options const o = parse(argc, argv);

  std::vector<kernels> impls{fja::serial_kernels(), fja::forkjoin_kernels()};
#if defined(FJA_HAVE_TBB)
  impls.push_back(fja::tbb_kernels());
#endif
#if defined(FJA_HAVE_OMP)
  impls.push_back(fja::omp_kernels());
#endif
#if defined(FJA_HAVE_STD_PAR)
  impls.push_back(fja::std_par_kernels());
#endif
  // The bound's threads, one team per worker count, created here so that no timed region creates a thread.
  std::vector<std::unique_ptr<team>> teams;
  teams.reserve(o.workers.size());
  for (int w : o.workers) teams.push_back(std::make_unique<team>(w));

  double const load_before = load_average();
  std::vector<std::size_t> sizes = o.sizes;
  if (o.big) sizes.push_back(100'000'000);
  std::vector<row> rows;
  bool all_ok = true;
  std::size_t const bound_slot = impls.size();  // the bound: the slot after the implementations'
  if (!design_is_balanced(bound_slot + 1)) {
    std::fprintf(stderr, "fj-algorithms: the rounds' order is not balanced for %zu slots\n", bound_slot + 1);
    return 1;
  }
  for (std::size_t n : sizes) {
    bool const big = o.big && n == 100'000'000;
    data d;
    auto cases = make_cases(d, n, o, big);
    for (auto& c : cases) {
      for (std::size_t wi = 0; wi < o.workers.size(); ++wi) {
        int const w = o.workers[wi];
        team& t = *teams[wi];
        // Calls per sample: enough that a sample of a small input lasts long enough to time.
        std::size_t const inner =
            c.resets_each_call ? 1 : std::max<std::size_t>(1, 1'000'000 / std::max<std::size_t>(n, 1));
        std::vector<std::vector<double>> samples(impls.size() + 1);
        std::vector<bool> available(impls.size() + 1, true);
        available[bound_slot] = static_cast<bool>(c.bound);
        for (int r = -1; r < o.reps; ++r) {  // r == -1: the checked warm-up call
          for (std::size_t j = 0; j <= bound_slot; ++j) {
            // The rounds follow a Williams design (slot_in_round), so that each slot runs right after each
            // other one equally often: what one implementation leaves behind (threads still spinning or
            // waking, a core's state, where the scheduler put a thread) then favours or hinders no
            // implementation in particular.
            std::size_t const k = r < 0 ? j : slot_in_round(static_cast<std::size_t>(r), j, bound_slot + 1);
            if (!available[k]) continue;
            if (k == bound_slot) t.arm();  // untimed, before the reset and eviction (see team)
            c.reset(r < 0);
            if (read_from_memory(n, o.warm)) evict_caches();
            bool ok = true;
            auto const call = [&](bool check) {
              if (k == bound_slot) {
                c.bound(t, check, ok);
                return true;
              }
              return c.run(impls[k], w, check, ok);
            };
            if (r < 0) {
              available[k] = call(true);
              t.disarm();
              if (!ok) {
                std::fprintf(stderr, "fj-algorithms: WRONG ANSWER: %s %s n=%zu workers=%d %s\n",
                             c.algorithm.c_str(), c.input.c_str(), n, w,
                             k == bound_slot ? "bound" : impls[k].name);
                all_ok = false;
              }
              continue;
            }
            auto const t0 = clock_type::now();
            for (std::size_t i = 0; i < inner; ++i) call(false);
            samples[k].push_back(seconds_since(t0) / static_cast<double>(inner));
            t.disarm();
          }
        }
        double const serial = median(samples[0]);
        double const bound = available[bound_slot] ? median(samples[bound_slot]) : -1;
        for (std::size_t k = 0; k <= bound_slot; ++k) {
          row rw{c.algorithm, c.input, n, w, k == bound_slot ? "bound" : impls[k].name, -1, 0, 0, 0};
          if (available[k]) {
            rw.seconds = median(samples[k]);
            rw.samples = samples[k];
            rw.speedup = serial / rw.seconds;
            if (c.bytes > 0) rw.gbps = c.bytes / rw.seconds / 1e9;
            if (bound > 0) rw.over_bound = rw.seconds / bound;
          }
          rows.push_back(rw);
        }
        pair_with_best_peer(rows, rows.size() - bound_slot - 1, impls.size());
        std::printf("%-17s %-18s n=%-10zu P=%d", c.algorithm.c_str(), c.input.c_str(), n, w);
        for (std::size_t k = 0; k <= bound_slot; ++k) {
          row const& rw = rows[rows.size() - bound_slot - 1 + k];
          if (k < bound_slot || rw.seconds > 0)
            std::printf("  %s %s", rw.impl.c_str(), format_time(rw.seconds).c_str());
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  }

  print_summary(rows, impls.size(), o.warm);
  double const load_after = load_average();
  std::printf(
      "load average (1 min): %.2f at the start, %.2f at the end (2 cores: above about 0.5, timings are "
      "disturbed)\n",
      load_before, load_after);

  std::filesystem::create_directories(o.out);
  {
    std::ofstream csv(o.out + "/algorithms.csv");
    csv << "algorithm,input,n,workers,implementation,median_seconds,speedup_vs_serial,gb_per_s,time_over_"
           "bound,paired_over_best_peer,rounds_won,rounds\n";
    for (auto const& r : rows) {
      csv << r.algorithm << ",\"" << r.input << "\"," << r.n << ',' << r.workers << ",\"" << r.impl << "\","
          << r.seconds << ',' << r.speedup << ',' << r.gbps << ',' << r.over_bound << ',';
      if (r.rounds > 0)
        csv << r.paired << ',' << r.faster_rounds << ',' << r.rounds;
      else
        csv << ",,";
      csv << '\n';
    }
  }
  {
    // Every sample, to tell an outlying median (every sample of a run slow, or a few) from a shifted one.
    std::ofstream csv(o.out + "/algorithms_samples.csv");
    csv << "algorithm,input,n,workers,implementation,round,seconds\n";
    for (auto const& r : rows) {
      for (std::size_t i = 0; i < r.samples.size(); ++i) {
        csv << r.algorithm << ",\"" << r.input << "\"," << r.n << ',' << r.workers << ",\"" << r.impl << "\","
            << i << ',' << r.samples[i] << '\n';
      }
    }
  }
  {
    std::ofstream md(o.out + "/algorithms.md");
    md << "# Parallel algorithms: forkjoin against serial std::, oneTBB, OpenMP, std::execution::par\n\n";
    md << "Median of " << o.reps << " interleaved samples per cell; speedup over serial std:: in brackets. ";
    md << "`bound`: for memory-bound algorithms, the simplest fast code with the same access pattern on the ";
    md << "same arrays (P threads, static shares; bench/algorithms/README.md), timed in the same loop, and "
          "its ";
    md << "GB/s (bytes read + written per second). `fj/bound` is forkjoin's time over the bound's (issue "
          "23's ";
    md << "bandwidth target for reduce and the scans: at most 1.10 at 10^7 and 10^8 elements; at smaller "
          "sizes ";
    md << "the data are in the caches and the ratio says nothing about bandwidth, so it is left out). ";
    md << "`fj/best` is forkjoin's time over the best parallel peer's (below 1: forkjoin is faster); ";
    md << "`paired` is the median over the rounds of forkjoin's sample over that peer's in the same round, ";
    md << "with the rounds forkjoin won (about half: a tie).";
    char load[128];
    std::snprintf(load, sizeof load, " Load average (1 min) %.2f at the start, %.2f at the end.\n\n",
                  load_before, load_after);
    md << load;
    md << "| algorithm | input | n | P |";
    for (auto const& k : impls) md << ' ' << k.name << " |";
    md << " bound (GB/s) | forkjoin GB/s | fj/bound | fj/best | paired (won) |\n|---|---|---|---|";
    for (std::size_t k = 0; k < impls.size(); ++k) md << "---|";
    md << "---|---|---|---|---|\n";
    for (std::size_t i = 0; i + bound_slot + 1 <= rows.size(); i += bound_slot + 1) {
      group const g{&rows[i], impls.size()};
      md << "| " << g.serial().algorithm << " | " << g.serial().input << " | " << g.serial().n << " | "
         << g.serial().workers << " |";
      char buf[96];
      for (std::size_t k = 0; k < impls.size(); ++k) {
        auto const& r = rows[i + k];
        if (r.seconds < 0) {
          md << " — |";
          continue;
        }
        std::snprintf(buf, sizeof buf, " %s (%.2f×) |", format_time(r.seconds).c_str(), r.speedup);
        md << buf;
      }
      auto const& fj = g.forkjoin();
      if (g.bound().seconds > 0 && read_from_memory(fj.n, o.warm)) {
        std::snprintf(buf, sizeof buf, " %s (%.2f) |", format_time(g.bound().seconds).c_str(),
                      g.bound().gbps);
        md << buf;
      } else {
        md << " — |";
      }
      if (fj.gbps > 0) {
        std::snprintf(buf, sizeof buf, " %.2f |", fj.gbps);
        md << buf;
      } else {
        md << " |";
      }
      if (fj.over_bound > 0 && read_from_memory(fj.n, o.warm)) {
        std::snprintf(buf, sizeof buf, " %.2f |", fj.over_bound);
        md << buf;
      } else {
        md << " |";
      }
      if (const row* best = g.best_peer(); best != nullptr && fj.seconds > 0) {
        std::snprintf(buf, sizeof buf, " %.2f |", fj.seconds / best->seconds);
        md << buf;
      } else {
        md << " |";
      }
      md << ' ' << (fj.rounds > 0 ? format_paired(fj) : std::string()) << " |";
      md << '\n';
    }
    if (!all_ok) md << "\n**Some implementation gave a wrong answer** (see the program's error output).\n";
  }
  std::printf("fj-algorithms: wrote %s/algorithms.md, algorithms.csv and algorithms_samples.csv\n",
              o.out.c_str());
  return all_ok ? 0 : 1;
}
