#pragma once
// What the Relacy models share (docs/verification/models.md): named sites for every modelled atomic operation
// and fence, mutants that weaken one site, and the runner that explores a scenario and reports it.
//
// A site is the name of one atomic operation in the production code; the production line and the model line
// carry the same `// model: <site>` marker, and tests/model/drift_check.cpp checks that both spell the same
// operation and memory order. The model passes its order through ld()/st()/rmw() (or calls one of the fence
// functions below) with the site's name, so that `--mutant` can replace that one order at run time.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

// Last: relacy.hpp #defines new, delete and the memory_order_* names; the models use rl::mo_* only.
#include <relacy/relacy.hpp>

namespace fj_model {

enum class site_kind {
  load,
  store,
  rmw,
  fence_seq_cst,
  fence_release,
  fence_acquire,
  compiler_barrier,  // detail::compiler_fence(): emits no instruction
  membarrier,        // detail::process_wide_fence(): membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)
  protocol
};

inline const char* kind_name(site_kind k) {
  switch (k) {
    case site_kind::load: return "load";
    case site_kind::store: return "store";
    case site_kind::rmw: return "rmw";
    case site_kind::fence_seq_cst: return "fence_seq_cst";
    case site_kind::fence_release: return "fence_release";
    case site_kind::fence_acquire: return "fence_acquire";
    case site_kind::compiler_barrier: return "compiler_barrier";
    case site_kind::membarrier: return "membarrier";
    case site_kind::protocol: return "protocol";
  }
  return "?";
}

inline const char* order_name(rl::memory_order mo) {
  switch (mo) {
    case rl::mo_relaxed: return "relaxed";
    case rl::mo_consume: return "consume";
    case rl::mo_acquire: return "acquire";
    case rl::mo_release: return "release";
    case rl::mo_acq_rel: return "acq_rel";
    case rl::mo_seq_cst: return "seq_cst";
  }
  return "?";
}

// Replacement of a mutant: a memory order, or one of these.
constexpr int k_drop = -1;      // fences: leave the fence out
constexpr int k_protocol = -2;  // protocol sites: take the mutant's alternative code path

inline bool parse_replacement(const std::string& s, int& out) {
  static const char* const names[] = {"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};
  for (int i = 0; i < 6; ++i) {
    if (s == names[i]) {
      out = i;
      return true;
    }
  }
  if (s == "drop") {
    out = k_drop;
    return true;
  }
  if (s == "on") {
    out = k_protocol;
    return true;
  }
  return false;
}

// One site seen during a run: what --list-mutants enumerates.
struct seen_site {
  const char* mode;
  const char* name;
  site_kind kind;
  rl::memory_order order;
};

// Run configuration and what the sites observed. Filled before rl::simulate and only read during it (apart
// from `hit` and the fixed-size `seen` table, which allocate nothing: Relacy replaces the allocator while it
// simulates).
struct registry {
  const char* mode = "";
  bool mutant_active = false;
  std::string mutant_mode;  // empty: every mode
  std::string mutant_site;
  int mutant_replacement = 0;
  bool hit = false;
  seen_site seen[256] = {};
  int seen_count = 0;
  // --fences-as-seq-cst: model compiler_fence() and process_wide_fence() each as a seq_cst fence, as the
  // models did before the membarrier model below (for comparison; it cannot tell the asymmetric argument
  // from the symmetric one).
  bool fences_as_seq_cst = false;
};

inline registry& reg() {
  static registry r;
  return r;
}

inline void record(site_kind k, rl::memory_order mo, const char* site) {
  registry& r = reg();
  for (int i = 0; i < r.seen_count; ++i) {
    if (r.seen[i].mode == r.mode && std::strcmp(r.seen[i].name, site) == 0) return;
  }
  if (r.seen_count < 256) r.seen[r.seen_count++] = {r.mode, site, k, mo};
}

// The replacement for this site if the mutant targets it in the current mode, else nothing.
inline bool mutated(const char* site, int& replacement) {
  registry& r = reg();
  if (!r.mutant_active || r.mutant_site != site) return false;
  if (!r.mutant_mode.empty() && r.mutant_mode != r.mode) return false;
  r.hit = true;
  replacement = r.mutant_replacement;
  return true;
}

// ---- membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), as Linux defines it ----
//
// The guarantee (include/forkjoin/detail/atomics.hpp, docs/protocols/deque.md §"Asymmetric mode"): the caller
// executes a full barrier on entry and on return, and during the call every *other* running thread of the
// process executes a full barrier at some point between two of its instructions (a thread that is not
// running passes through a context switch, which is one). Nothing more: in particular no thread is stopped,
// and the other threads' own code contains no fence at all.
//
// The model. The caller executes a seq_cst fence F_in, posts a request to every other thread that has not
// finished, waits until each has served it (or finished), then executes a seq_cst fence F_out. A thread
// serves its pending requests at its next *barrier point* by executing a seq_cst fence F_T: the barrier
// points are the ld()/st()/rmw()/fence_at() hooks, which every modelled atomic operation and fence calls
// right before it runs, and the waiting loop of a thread that is itself inside a membarrier. A thread that
// returns from its test body executes a seq_cst fence and counts as finished (membarrier_thread_exit(): the
// exit is a context switch).
//
// Why that is the membarrier guarantee in C++ terms. The requests and acknowledgements are the kernel's
// bookkeeping (the IPI and its completion), not memory accesses of the program, so they are plain variables
// here, outside Relacy's memory model; Relacy runs its threads as fibres, one at a time, so they need no
// ordering of their own, and they add no scheduling point (the fences are ones, as every seq_cst fence in
// Relacy). What they enforce is an order of execution: F_in runs before the request is posted, F_T runs
// after the request was posted, and F_out runs only after every F_T (or exit fence). Relacy places its
// seq_cst fences in the single total order S in the order they execute, and a later seq_cst fence takes in
// what every earlier one released. So for every other thread T: F_in <S F_T <S F_out, with F_T sequenced at
// some point of T's code, which is exactly "T executed a full barrier during the call" with the caller's full
// barriers at entry and exit. The deque's argument (docs/protocols/deque.md §"Why no item is lost or taken
// twice", with the owner's W: bottom = b and R_o: top, the thief's R_t: top and R'_t: bottom) then goes
// through with C++20's fence rule ([atomics.order]: if a seq_cst fence X happens before A, A is
// coherence-ordered before B, and B happens before a seq_cst fence Y, then X precedes Y in S). If the
// owner's F_T comes after W, R'_t reading an older bottom (coherence-ordered before W) would give
// F_out <S F_T; if it comes before W, and so before R_o, R_o reading a top older than the CAS that R_t read
// (coherence-ordered before R_t) would give F_T <S F_in. Either contradicts F_in <S F_T <S F_out, so one side
// sees the other. A thief with only a fence of its own has no F_T in the owner, whose pop has no fence here
// (compiler_fence() is nothing in the model), and the store-buffering outcome is allowed, as on the hardware.
//
// Where it is coarser than the kernel: the barrier points are the places right before a modelled atomic
// operation, so a plain (rl::var) access between two of them is always on the same side of F_T as the
// atomic operation before it; the protocols modelled here order their plain data by release/acquire, not
// by the membarrier. And Relacy lets a seq_cst fence take in everything an earlier one released (a
// happens-before edge, where C++ only orders the two in S), so the owner's plain writes before F_T are
// ordered before the caller's reads after F_out, and a race that only a missing release would leave is not
// reported on that path (docs/verification/models.md, its "Asymmetric fences" item). A thread serves a
// request at the first barrier point after it was posted; a later point is the same execution as one in which
// the caller entered the call later, which the schedulers explore (the caller does nothing else during the
// call).

constexpr unsigned k_max_threads = 8;

struct membarrier_state {
  unsigned threads = 0;
  bool requested[k_max_threads] = {};   // a request is pending for this thread
  unsigned served[k_max_threads] = {};  // barriers this thread executed to serve requests
  bool finished[k_max_threads] = {};
};

inline membarrier_state& mb() {
  static membarrier_state s;
  return s;
}

// Start of an execution (the suite's before()), for a test of `threads` threads; 0 when the execution
// issues no membarrier (the exit fences are then left out: a seq_cst fence is a scheduling point of Relacy,
// and would multiply the executions of the other modes for nothing).
inline void membarrier_reset(unsigned threads) {
  membarrier_state& m = mb();
  m = membarrier_state{};
  m.threads = threads < k_max_threads ? threads : k_max_threads;
}

// A barrier point of the running thread: serve a pending request with a full barrier.
inline void barrier_point() {
  membarrier_state& m = mb();
  if (m.threads == 0) return;
  const unsigned self = rl::thread_index();
  if (self >= m.threads || !m.requested[self]) return;
  // Relacy may switch threads inside the fence, before it takes effect: a request posted meanwhile is served
  // by it too, so the flag is cleared only once it has.
  rl::atomic_thread_fence(rl::mo_seq_cst, RL_INFO);  // F_T
  m.requested[self] = false;
  m.served[self] += 1;
}

// The end of a thread's test body: a context switch, so a full barrier; no request waits for it after this.
inline void membarrier_thread_exit() {
  membarrier_state& m = mb();
  if (m.threads == 0) return;
  const unsigned self = rl::thread_index();
  if (self >= m.threads) return;
  rl::atomic_thread_fence(rl::mo_seq_cst, RL_INFO);
  m.requested[self] = false;
  m.finished[self] = true;
}

// The call itself, from the running thread. With `only` >= 0, the barrier is requested from that thread
// alone: membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, MEMBARRIER_CMD_FLAG_CPU, its CPU), which
// include/forkjoin/detail/cpu_fence.hpp issues for a deque's bound owner (deque.md, "Interrupting the
// victim's core only"). Every other thread then executes no barrier for it.
inline void membarrier(int only = -1) {
  membarrier_state& m = mb();
  // A suite whose threads may call it must call membarrier_reset() in its before().
  RL_ASSERT(m.threads != 0);
  rl::atomic_thread_fence(rl::mo_seq_cst, RL_INFO);  // F_in
  const unsigned self = rl::thread_index();
  unsigned wait_for[k_max_threads] = {};
  for (unsigned t = 0; t < m.threads; ++t) {
    if (t == self || m.finished[t] || (only >= 0 && t != static_cast<unsigned>(only))) continue;
    m.requested[t] = true;
    wait_for[t] = m.served[t] + 1;
  }
  for (;;) {
    bool done = true;
    for (unsigned t = 0; t < m.threads; ++t) {
      if (t != self && !m.finished[t] && wait_for[t] != 0 && m.served[t] < wait_for[t]) done = false;
    }
    if (done) break;
    barrier_point();  // another thread's membarrier may be waiting for this one
    // Lets the others run (Relacy's fair schedulers block a yielding thread until another thread has been
    // scheduled, without spending a preemption of the context bound).
    rl::yield(1, RL_INFO);
  }
  rl::atomic_thread_fence(rl::mo_seq_cst, RL_INFO);  // F_out
}

inline rl::memory_order order_at(site_kind k, rl::memory_order mo, const char* site) {
  barrier_point();
  record(k, mo, site);
  int replacement = 0;
  if (mutated(site, replacement) && replacement >= 0) return static_cast<rl::memory_order>(replacement);
  return mo;
}

// The order of the atomic load / store / read-modify-write at `site`.
inline rl::memory_order ld(rl::memory_order mo, const char* site) {
  return order_at(site_kind::load, mo, site);
}
inline rl::memory_order st(rl::memory_order mo, const char* site) {
  return order_at(site_kind::store, mo, site);
}
inline rl::memory_order rmw(rl::memory_order mo, const char* site) {
  return order_at(site_kind::rmw, mo, site);
}

inline void fence_at(site_kind k, rl::memory_order mo, const char* site, int only = -1) {
  barrier_point();
  record(k, mo, site);
  int replacement = 0;
  if (mutated(site, replacement)) {
    if (replacement < 0) return;  // drop
    // A membarrier replaced by an order: a fence of that order in the caller only.
    rl::atomic_thread_fence(static_cast<rl::memory_order>(replacement), RL_INFO);
    return;
  }
  if (reg().fences_as_seq_cst && (k == site_kind::compiler_barrier || k == site_kind::membarrier)) {
    rl::atomic_thread_fence(rl::mo_seq_cst, RL_INFO);
    return;
  }
  switch (k) {
    case site_kind::compiler_barrier: return;  // no instruction; Relacy runs each thread in program order
    case site_kind::membarrier: membarrier(only); return;
    default: rl::atomic_thread_fence(mo, RL_INFO); return;
  }
}

// The fences of include/forkjoin/detail/atomics.hpp, by the same names.
inline void release_fence(const char* site) { fence_at(site_kind::fence_release, rl::mo_release, site); }
inline void seq_cst_fence(const char* site) { fence_at(site_kind::fence_seq_cst, rl::mo_seq_cst, site); }
inline void acquire_fence(const char* site) { fence_at(site_kind::fence_acquire, rl::mo_acquire, site); }
// Asymmetric mode (atomics.hpp, deque.md §"Asymmetric mode"). The compiler barrier is no fence at all: the
// model records the site (for the drift check and the mutants) and does nothing else, since Relacy already
// runs each thread in program order. The membarrier is membarrier() above. Mutants: the compiler barrier can
// only be dropped (which changes nothing in the model); the membarrier can be dropped, or replaced by a fence
// of the caller only (`:seq_cst`, `:acq_rel`), the other threads executing no barrier.
// (--fences-as-seq-cst models both as seq_cst fences instead.)
inline void compiler_fence(const char* site) { fence_at(site_kind::compiler_barrier, rl::mo_seq_cst, site); }
// `only`: the thread whose core alone is interrupted (detail::process_wide_fence(slot)), or -1 for all.
inline void process_wide_fence(const char* site, int only = -1) {
  fence_at(site_kind::membarrier, rl::mo_seq_cst, site, only);
}
// std::atomic_thread_fence(mo) at a named site.
inline void atomic_thread_fence(rl::memory_order mo, const char* site) {
  fence_at(mo == rl::mo_seq_cst   ? site_kind::fence_seq_cst
           : mo == rl::mo_release ? site_kind::fence_release
                                  : site_kind::fence_acquire,
           mo, site);
}
// join.hpp: std::atomic_thread_fence(acquire) outside TSan builds; there the RMW before it is acq_rel.
inline void acquire_fence_unless_tsan(bool tsan, const char* site) {
  if (!tsan) atomic_thread_fence(rl::mo_acquire, site);  // model: join.fence.body
}

// A protocol mutant (not an order): true when the mutant asks this site to take its broken alternative.
inline bool protocol_mutant(const char* site) {
  record(site_kind::protocol, rl::mo_relaxed, site);
  int replacement = 0;
  return mutated(site, replacement) && replacement == k_protocol;
}

// Every weaker replacement of a site (all strictly weaker orders valid for its kind; fences: dropped, and a
// seq_cst fence also weakened to acq_rel): what scripts/mutation-matrix.sh runs.
inline std::vector<std::string> weakenings(const seen_site& s) {
  switch (s.kind) {
    case site_kind::load:
      if (s.order == rl::mo_seq_cst) return {"acquire", "relaxed"};
      if (s.order == rl::mo_acquire) return {"relaxed"};
      return {};
    case site_kind::store:
      if (s.order == rl::mo_seq_cst) return {"release", "relaxed"};
      if (s.order == rl::mo_release) return {"relaxed"};
      return {};
    case site_kind::rmw:
      if (s.order == rl::mo_seq_cst) return {"acq_rel", "acquire", "release", "relaxed"};
      if (s.order == rl::mo_acq_rel) return {"acquire", "release", "relaxed"};
      if (s.order == rl::mo_acquire || s.order == rl::mo_release) return {"relaxed"};
      return {};
    case site_kind::fence_seq_cst: return {"drop", "acq_rel"};
    case site_kind::fence_release:
    case site_kind::fence_acquire: return {"drop"};
    case site_kind::compiler_barrier: return {"drop"};
    // A seq_cst (or acq_rel) fence in the caller only, the other threads executing no barrier.
    case site_kind::membarrier: return {"drop", "seq_cst", "acq_rel"};
    case site_kind::protocol: return {"on"};
  }
  return {};
}

// ---- running scenarios ----

struct options {
  double scale = 1.0;        // multiplies the sampled (random-scheduler) iteration counts
  unsigned extra_bound = 0;  // added to the preemption bound of context-bound runs
  bool list_mutants = false;
  bool expect_caught = false;  // exit 0 iff the mutant was applied and some run failed
  bool history = false;        // print Relacy's execution history of a failure
  std::string only_mode;
  std::string only_scenario;
};

inline const char* scheduler_name(rl::scheduler_type_e s) {
  switch (s) {
    case rl::random_scheduler_type: return "random";
    case rl::fair_full_search_scheduler_type: return "full-search";
    case rl::fair_context_bound_scheduler_type: return "context-bound";
    default: return "?";
  }
}

struct scenario {
  const char* mode;
  const char* name;
  const char* description;  // threads and operations, for the report
  unsigned threads;
  rl::scheduler_type_e scheduler;
  rl::iteration_t iterations;  // random scheduler: samples; the exhaustive schedulers ignore it
  unsigned context_bound;      // context-bound scheduler only
  std::function<bool(rl::test_params&)> simulate;
};

// A scenario that simulates the Relacy suite `Suite`, whose static `config` selects the variant, with
// `config`.
template <class Suite>
scenario suite_scenario(const char* mode, const char* name, const char* description, unsigned threads,
                        rl::scheduler_type_e scheduler, rl::iteration_t iterations, unsigned bound,
                        const decltype(Suite::config)& config) {
  return {mode, name, description, threads, scheduler, iterations, bound, [config](rl::test_params& p) {
            Suite::config = config;
            return rl::simulate<Suite>(p);
          }};
}

struct totals {
  int passed = 0;
  int failed = 0;
};

inline bool run_scenario(const scenario& sc, const options& opt, totals& t) {
  reg().mode = sc.mode;
  rl::test_params p;
  std::ofstream sink("/dev/null");
  p.output_stream = opt.history ? &std::cout : &sink;
  p.progress_stream = &sink;
  p.search_type = sc.scheduler;
  const unsigned context_bound = sc.context_bound + opt.extra_bound;
  p.context_bound = context_bound;
  rl::iteration_t iterations = sc.iterations;
  if (sc.scheduler == rl::random_scheduler_type) {
    iterations = static_cast<rl::iteration_t>(static_cast<double>(iterations) * opt.scale);
    if (iterations == 0) iterations = 1;
  }
  p.iteration_count = iterations;
  const auto start = std::chrono::steady_clock::now();
  const bool ok = sc.simulate(p);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string bound = "-";
  if (sc.scheduler == rl::fair_context_bound_scheduler_type) bound = std::to_string(context_bound);
  const char* coverage = "sampled";
  if (sc.scheduler == rl::fair_full_search_scheduler_type) coverage = "exhaustive";
  if (sc.scheduler == rl::fair_context_bound_scheduler_type) coverage = "all within bound";
  std::printf(
      "  %-4s %-10s %-14s threads=%u scheduler=%-13s preemption-bound=%-2s executions=%-8llu (%s) "
      "%.2fs  %s\n",
      ok ? "ok" : "FAIL", sc.mode, sc.name, sc.threads, scheduler_name(sc.scheduler), bound.c_str(),
      static_cast<unsigned long long>(p.stop_iteration), coverage, seconds,
      ok ? "" : rl::test_result_str(p.test_result));
  if (!ok) std::printf("       scenario: %s\n", sc.description);
  (ok ? t.passed : t.failed) += 1;
  return ok;
}

// Parses the command line, runs the scenarios and prints the report. Returns the exit status.
//   --mutant [MODE/]SITE:REPLACEMENT   weaken one site (REPLACEMENT: an order, drop, or on for protocol
//   sites)
//   --expect-caught                    succeed iff the mutant was applied and some scenario failed
//   --list-mutants                     print every one-step weakening of the sites the scenarios reach
//   --mode MODE, --scenario NAME       run one mode, one scenario only
//   --history                          print Relacy's history of a failing execution
//   --fences-as-seq-cst                model compiler_fence() and process_wide_fence() as seq_cst fences
// Environment, for longer runs than the test budget allows: FJ_MODEL_SCALE multiplies the sampled
// (random-scheduler) iteration counts, FJ_MODEL_EXTRA_BOUND raises every preemption bound.
// `list_prefix`: --list-mutants lists only the sites whose names start with it (a model that reuses another
// model's code leaves that code's mutants to it); `list_iterations`: the sampled executions per scenario that
// find the sites, or 0 to run each scenario with its own scheduler instead.
inline int main_for(const char* model, std::vector<scenario> scenarios, int argc, char** argv,
                    const char* list_prefix = "", rl::iteration_t list_iterations = 200) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  options opt;
  if (const char* s = std::getenv("FJ_MODEL_SCALE")) opt.scale = std::atof(s);
  if (const char* s = std::getenv("FJ_MODEL_EXTRA_BOUND"))
    opt.extra_bound = static_cast<unsigned>(std::atoi(s));
  registry& r = reg();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--mutant" && i + 1 < argc) {
      std::string spec = argv[++i];
      const auto slash = spec.find('/');
      if (slash != std::string::npos) {
        r.mutant_mode = spec.substr(0, slash);
        spec = spec.substr(slash + 1);
      }
      const auto colon = spec.rfind(':');
      if (colon == std::string::npos || !parse_replacement(spec.substr(colon + 1), r.mutant_replacement)) {
        std::fprintf(stderr, "%s: bad mutant '%s' (want [MODE/]SITE:ORDER|drop|on)\n", model, argv[i]);
        return 2;
      }
      r.mutant_site = spec.substr(0, colon);
      r.mutant_active = true;
      if (!r.mutant_mode.empty()) opt.only_mode = r.mutant_mode;
    } else if (arg == "--expect-caught") {
      opt.expect_caught = true;
    } else if (arg == "--list-mutants") {
      opt.list_mutants = true;
    } else if (arg == "--fences-as-seq-cst") {
      r.fences_as_seq_cst = true;
    } else if (arg == "--history") {
      opt.history = true;
    } else if (arg == "--mode" && i + 1 < argc) {
      opt.only_mode = argv[++i];
    } else if (arg == "--scenario" && i + 1 < argc) {
      opt.only_scenario = argv[++i];
    } else {
      std::fprintf(stderr, "%s: unknown argument '%s'\n", model, arg.c_str());
      return 2;
    }
  }

  if (opt.list_mutants) {
    // Sampled executions (200 unless the model asks for more) of every scenario record the sites they reach;
    // the sites are what the matrix mutates (a site no scenario reaches has no mutant: the reports list the
    // sites, the drift check the markers).
    totals ignored;
    for (scenario sc : scenarios) {
      if (list_iterations == 0) {
        // The scenario as it runs: for sites that only a rare interleaving reaches.
        options quiet = opt;
        run_scenario(sc, quiet, ignored);
        continue;
      }
      sc.scheduler = rl::random_scheduler_type;
      sc.iterations = list_iterations;
      options quiet = opt;
      quiet.scale = 1.0;
      run_scenario(sc, quiet, ignored);
    }
    std::printf("mutants:\n");
    for (int i = 0; i < r.seen_count; ++i) {
      if (std::strncmp(r.seen[i].name, list_prefix, std::strlen(list_prefix)) != 0) continue;
      for (const std::string& w : weakenings(r.seen[i])) {
        std::printf("mutant %s/%s:%s %s %s\n", r.seen[i].mode, r.seen[i].name, w.c_str(),
                    kind_name(r.seen[i].kind), order_name(r.seen[i].order));
      }
    }
    return 0;
  }

  std::printf(
      "%s model (Relacy%s%s)\n", model, r.mutant_active ? ", mutant " : "",
      r.mutant_active ? (r.mutant_mode + (r.mutant_mode.empty() ? "" : "/") + r.mutant_site).c_str() : "");
  totals t;
  for (const scenario& sc : scenarios) {
    if (!opt.only_mode.empty() && opt.only_mode != sc.mode) continue;
    if (!opt.only_scenario.empty() && opt.only_scenario != sc.name) continue;
    run_scenario(sc, opt, t);
  }
  if (r.mutant_active && !r.hit) {
    std::printf("mutant site not reached: the mutant was never applied\n");
    std::printf("%d passed, %d failed\n", t.passed, t.failed + 1);
    return 3;
  }
  if (opt.expect_caught) {
    const bool caught = t.failed > 0;
    std::printf("mutant %s\n", caught ? "caught" : "NOT caught");
    std::printf("%d passed, %d failed\n", caught ? 1 : 0, caught ? 0 : 1);
    return caught ? 0 : 1;
  }
  std::printf("%d passed, %d failed\n", t.passed, t.failed);
  return t.failed == 0 ? 0 : 1;
}

}  // namespace fj_model
