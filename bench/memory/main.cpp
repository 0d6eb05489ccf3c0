// fj-memory: the stack memory high-water mark and the maximum resident set of fib, a deep chain of forks and
// an unbalanced tree at several worker counts, held against Theorem 2 of the libfork paper as our segmented
// stack guarantees it (docs/verification/memory-bound.md). Every measurement runs in its own child process.
// Exits with status 1 if any run's stack peak exceeds the checked bound.
//
//   fj-memory [--scale full|quick] [--workloads fib,chain,tree] [--workers 1,2,4,8,16] [--pools busy,lazy]
//             [--fib N] [--chain DEPTH] [--tree ROOTS] [--reps R] [--bound-factor F] [--out DIR]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bound.hpp"
#include "measure.hpp"
#include "report.hpp"
#include "workloads.hpp"

namespace {

struct options {
  std::string scale = "full";
  std::vector<fjm::workload> workloads = {fjm::workload::fib, fjm::workload::chain, fjm::workload::tree};
  std::vector<std::size_t> workers = {1, 2, 4, 8, 16};
  std::vector<fjm::pool_kind> pools = {fjm::pool_kind::busy, fjm::pool_kind::lazy};
  fjm::sizes sizes{30, 1'000'000, 2000};
  int reps = 3;
  double bound_factor = 1.0;
  std::string out;
};

constexpr const char* k_usage =
    "usage: fj-memory [--scale full|quick] [--workloads fib,chain,tree] [--workers 1,2,4,8,16]\n"
    "                 [--pools busy,lazy] [--fib N] [--chain DEPTH] [--tree ROOTS] [--reps R]\n"
    "                 [--bound-factor F] [--out DIR]\n"
    "  full scale: fib(30), a chain 10^6 deep, 2000 unbalanced subtrees, 3 repetitions;\n"
    "  quick scale: fib(25), a chain 10^5 deep, 500 subtrees, 1 repetition.\n"
    "  --bound-factor scales the checked bound (a value below 1 shows that the check can fail).\n"
    "  Exit status 1 if a stack peak exceeds the checked bound, 2 for a wrong answer or a failed child.\n";

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "fj-memory: %s\n%s", what.c_str(), k_usage);
  std::exit(2);
}

int positive(const std::string& text, const char* what) {
  const long value = std::strtol(text.c_str(), nullptr, 10);
  if (value <= 0 || value > 100'000'000) usage_error(std::string("bad ") + what + ": " + text);
  return static_cast<int>(value);
}

options parse(int argc, char** argv) {
  options o;
  std::map<std::string, std::string> given;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(k_usage, stdout);
      std::exit(0);
    }
    if (arg.rfind("--", 0) != 0 || i + 1 >= argc) usage_error("unexpected argument " + arg);
    given[arg] = argv[++i];
  }
  if (auto it = given.find("--scale"); it != given.end()) {
    o.scale = it->second;
    if (o.scale == "quick") {
      o.sizes = {25, 100'000, 500};
      o.reps = 1;
    } else if (o.scale != "full") {
      usage_error("unknown scale " + o.scale);
    }
    given.erase(it);
  }
  for (const auto& [key, value] : given) {
    if (key == "--workloads") {
      o.workloads.clear();
      for (const std::string& name : split(value)) {
        fjm::workload w{};
        if (!fjm::parse_workload(name, w)) usage_error("unknown workload " + name);
        o.workloads.push_back(w);
      }
    } else if (key == "--workers") {
      o.workers.clear();
      for (const std::string& n : split(value))
        o.workers.push_back(static_cast<std::size_t>(positive(n, "worker count")));
    } else if (key == "--pools") {
      o.pools.clear();
      for (const std::string& name : split(value)) {
        fjm::pool_kind k{};
        if (!fjm::parse_pool(name, k) || k == fjm::pool_kind::unit) usage_error("unknown pool " + name);
        o.pools.push_back(k);
      }
    } else if (key == "--fib") {
      o.sizes.fib_n = positive(value, "fib n");
    } else if (key == "--chain") {
      o.sizes.chain_depth = positive(value, "chain depth");
    } else if (key == "--tree") {
      o.sizes.tree_roots = positive(value, "tree roots");
    } else if (key == "--reps") {
      o.reps = positive(value, "repetition count");
    } else if (key == "--bound-factor") {
      o.bound_factor = std::strtod(value.c_str(), nullptr);
      if (!(o.bound_factor > 0)) usage_error("bad bound factor " + value);
    } else if (key == "--out") {
      o.out = value;
    } else {
      usage_error("unknown option " + key);
    }
  }
  if (o.workloads.empty() || o.workers.empty() || o.pools.empty()) usage_error("nothing to measure");
  return o;
}

std::string command_line(int argc, char** argv) {
  std::string text = "fj-memory";
  for (int i = 1; i < argc; ++i) text += std::string(" ") + argv[i];
  return text;
}

fjm::serial_profile profile_serially(fjm::workload w, int size) {
  const fjm::run_result r =
      fjm::measure({.work = w, .pool = fjm::pool_kind::unit, .workers = 1, .size = size, .probe = true});
  if (r.profile.max_frames == 0 || r.profile.max_used_bytes == 0) {
    throw std::runtime_error("fj-memory: the serial probe saw no frame");
  }
  return {w, size, r.profile.max_used_bytes, r.profile.max_frames, r.stack_peak_bytes, r.max_rss_kib};
}

// Measures one cell `reps` times; every repetition's peak is checked against the bound.
fjm::cell measure_cell(const fjm::serial_profile& s, fjm::pool_kind pool, std::size_t workers, int reps,
                       double bound_factor, long baseline_rss_kib) {
  const double p = static_cast<double>(workers);
  const double m1 = static_cast<double>(s.m1_bytes);
  fjm::cell c{};
  c.work = s.work;
  c.pool = pool;
  c.workers = workers;
  c.reps = reps;
  c.baseline_rss_kib = baseline_rss_kib;
  c.p_times_s1 = p * static_cast<double>(s.s1_bytes);
  c.bound_ours = fjm::theorem2_ours(p, m1, static_cast<double>(s.depth));
  c.bound_checked = c.bound_ours * bound_factor;
  c.bound_paper = fjm::theorem2_paper(p, m1);
  c.within_bound = true;
  for (int r = 0; r < reps; ++r) {
    const fjm::run_result run =
        fjm::measure({.work = s.work, .pool = pool, .workers = workers, .size = s.size});
    c.max_steals = std::max(c.max_steals, run.steals);
    c.peak_bytes = std::max(c.peak_bytes, run.stack_peak_bytes);
    c.max_rss_kib = std::max(c.max_rss_kib, run.max_rss_kib);
    if (static_cast<double>(run.stack_peak_bytes) > c.bound_checked) c.within_bound = false;
  }
  return c;
}

int run_suite(const options& o, const std::string& command) {
  std::vector<fjm::serial_profile> serial;
  std::vector<fjm::cell> cells;
  // The same pool running fib(1): what the threads, the binary and the allocator cost without real work.
  std::map<std::pair<fjm::pool_kind, std::size_t>, long> baseline;
  auto baseline_of = [&](fjm::pool_kind pool, std::size_t workers) {
    auto [it, fresh] = baseline.try_emplace({pool, workers}, 0);
    if (fresh) {
      it->second =
          fjm::measure({.work = fjm::workload::fib, .pool = pool, .workers = workers, .size = 1}).max_rss_kib;
    }
    return it->second;
  };

  for (fjm::workload w : o.workloads) {
    const fjm::serial_profile s = profile_serially(w, fjm::size_of(w, o.sizes));
    serial.push_back(s);
    std::fprintf(stderr, "fj-memory: %s(%d) serial: M1 %zu B, N %zu frames, S1 %zu B\n",
                 std::string(fjm::workload_name(w)).c_str(), s.size, s.m1_bytes, s.depth, s.s1_bytes);
    cells.push_back(measure_cell(s, fjm::pool_kind::unit, 1, o.reps, o.bound_factor,
                                 baseline_of(fjm::pool_kind::unit, 1)));
    for (fjm::pool_kind pool : o.pools) {
      for (std::size_t workers : o.workers) {
        cells.push_back(measure_cell(s, pool, workers, o.reps, o.bound_factor, baseline_of(pool, workers)));
        const fjm::cell& c = cells.back();
        std::fprintf(stderr, "fj-memory: %s %s P=%zu: peak %zu B, max RSS %ld KiB, %s\n",
                     std::string(fjm::workload_name(w)).c_str(), fjm::pool_name(pool), workers, c.peak_bytes,
                     c.max_rss_kib, c.within_bound ? "within the bound" : "BOUND EXCEEDED");
      }
    }
  }

  const fjm::settings how{o.scale, o.reps, o.bound_factor, command};
  fjm::write_markdown(std::cout, how, serial, cells);
  if (!o.out.empty()) {
    std::filesystem::create_directories(o.out);
    std::ofstream md(std::filesystem::path(o.out) / "memory.md");
    fjm::write_markdown(md, how, serial, cells);
    std::ofstream csv(std::filesystem::path(o.out) / "memory.csv");
    fjm::write_csv(csv, serial, cells);
    if (!md || !csv) throw std::runtime_error("fj-memory: cannot write the report in " + o.out);
  }

  const auto passed =
      std::count_if(cells.begin(), cells.end(), [](const fjm::cell& c) { return c.within_bound; });
  const auto failed = static_cast<long>(cells.size()) - passed;
  std::cout << "\n";
  for (const fjm::cell& c : cells) {
    if (!c.within_bound) {
      std::cout << "*** BOUND EXCEEDED: " << fjm::workload_name(c.work) << " " << fjm::pool_name(c.pool)
                << " P=" << c.workers << ": stack peak " << c.peak_bytes << " B > checked bound "
                << static_cast<long long>(c.bound_checked) << " B ***\n";
    }
  }
  std::cout << "memory-bound: " << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc >= 2 && std::string(argv[1]) == "--run-one") {
      return fjm::run_one(std::vector<std::string>(argv + 2, argv + argc));
    }
    return run_suite(parse(argc, argv), command_line(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
