#include "options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string_view>

#include "registry.hpp"

namespace fjb {
namespace {

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = text.substr(0, comma);
    if (!item.empty()) {
      items.emplace_back(item);
    }
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return items;
}

unsigned parse_count(std::string_view text, std::string_view option) {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value == 0) {
    throw usage_error(std::string(option) + ": '" + std::string(text) + "' is not a positive whole number");
  }
  return value;
}

// "1,2,4" or "1-4" or a mix such as "1-2,8".
std::vector<unsigned> parse_worker_list(std::string_view text) {
  std::vector<unsigned> counts;
  for (const auto& item : split_list(text)) {
    const auto dash = item.find('-');
    if (dash == std::string::npos) {
      counts.push_back(parse_count(item, "--workers"));
      continue;
    }
    const unsigned first = parse_count(std::string_view(item).substr(0, dash), "--workers");
    const unsigned last = parse_count(std::string_view(item).substr(dash + 1), "--workers");
    for (unsigned p = first; p <= last; ++p) {
      counts.push_back(p);
    }
  }
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  if (counts.empty()) {
    throw usage_error("--workers: no worker counts given");
  }
  return counts;
}

// "fib=30,T3=4000", added to `sizes`; names are checked against the registry later, by make_plan.
void parse_sizes(std::string_view text, std::vector<std::pair<std::string, std::int64_t>>& sizes) {
  const auto items = split_list(text);
  if (items.empty()) {
    throw usage_error("--size: expected workload=N[,workload=N...], not '" + std::string(text) + "'");
  }
  for (const auto& item : items) {
    const auto equals = item.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw usage_error("--size: '" + item + "' is not workload=N");
    }
    std::string name = item.substr(0, equals);
    const std::string_view number = std::string_view(item).substr(equals + 1);
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (number.empty() || error != std::errc{} || end != number.data() + number.size() || value <= 0) {
      throw usage_error("--size " + item + ": '" + std::string(number) + "' is not a positive whole number");
    }
    for (const auto& [named, size] : sizes) {
      if (named == name) {
        throw usage_error("--size: " + name + " is given two sizes");
      }
    }
    sizes.emplace_back(std::move(name), value);
  }
}

}  // namespace

options parse_options(std::span<char* const> arguments) {
  options result;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    std::string_view argument = arguments[i];
    if (argument == "--help" || argument == "-h") {
      result.help = true;
      continue;
    }
    if (argument == "--list") {
      result.list = true;
      continue;
    }
    // Both "--option value" and "--option=value".
    std::string_view value;
    if (const auto equals = argument.find('=');
        argument.starts_with("--") && equals != std::string_view::npos) {
      value = argument.substr(equals + 1);
      argument = argument.substr(0, equals);
    } else if (i + 1 < arguments.size()) {
      value = arguments[++i];
    } else {
      throw usage_error("unknown option or missing value: " + std::string(argument));
    }
    if (argument == "--workloads") {
      result.workloads = split_list(value);
    } else if (argument == "--impls") {
      result.implementations = split_list(value);
    } else if (argument == "--workers") {
      result.workers = parse_worker_list(value);
    } else if (argument == "--scale") {
      const auto parsed = parse_scale(value);
      if (!parsed) {
        throw usage_error("--scale: expected quick, default or paper, not '" + std::string(value) + "'");
      }
      result.size = *parsed;
    } else if (argument == "--size") {
      parse_sizes(value, result.sizes);
    } else if (argument == "--reps") {
      result.repetitions = parse_count(value, "--reps");
    } else if (argument == "--out") {
      result.out = std::string(value);
    } else {
      throw usage_error("unknown option: " + std::string(argument));
    }
  }
  return result;
}

std::vector<unsigned> default_worker_counts(unsigned cores) {
  std::vector<unsigned> counts;
  for (unsigned p = 1; p <= cores; ++p) {
    counts.push_back(p);
  }
  counts.push_back(2 * cores);
  return counts;
}

namespace {

// One line per workload: what N means in --size, and its range.
std::string size_lines() {
  std::string text;
  for (const workload* bench : registered_workloads()) {
    const size_parameter& size = bench->info.size;
    std::string range = std::to_string(size.min) + ".." + std::to_string(size.max);
    if (size.power_of_two) {
      range += ", a power of two";
    } else if (size.multiple_of > 1) {
      range += ", a multiple of " + std::to_string(size.multiple_of);
    }
    char line[160];
    std::snprintf(line, sizeof line, "                          %-10s N = %s (%s)\n",
                  std::string(bench->info.name).c_str(), std::string(size.meaning).c_str(), range.c_str());
    text += line;
  }
  return text;
}

}  // namespace

std::string help_text() {
  return R"(fj-bench: compare forkjoin with the serial projection, oneTBB and OpenMP on the fork-join benchmark suite.

usage: fj-bench [options]

  --workloads a,b,...   workloads to run (default: all that run at the chosen scale; see --list)
  --impls a,b,...       implementations to run (default: all built in; see --list). The serial projection
                        is always measured too, since speedup and overhead are relative to it.
  --workers LIST        worker counts, e.g. 1,2,4 or 1-8 (default: 1 up to the number of cores, and twice
                        the number of cores to show oversubscription)
  --scale S             quick (whole suite in about a minute, used by the tests), default (at most about
                        15 minutes on a 2-core machine) or paper (libfork's Table I sizes, for big machines)
  --size W=N[,W=N...]   problem sizes instead of the scale's, so that a big machine can give every
                        worker enough work (e.g. --size fib=42,T3=20000); the workload's other parameters
                        stay those of the scale, and --list shows them. N per workload:
)" + size_lines() +
         R"(                        A UTS tree whose counts are not recorded is checked by a serial search after
                        each run (outside the timed region, but it adds to the wall clock).
  --reps N              repetitions of every measurement; medians and spreads are over these (default 5)
  --out DIR             results directory for CSV, JSON, the Markdown report and PNG plots (default results)
  --list                list workloads (with their sizes at the chosen scale) and implementations, then exit
  --help                this text

Every measurement runs in its own child process, so its maximum resident set is that benchmark's alone.
Repetitions are interleaved across implementations so that drift on a shared machine hits all alike.
Every benchmark checks its answer; a wrong answer stops the run with an error and exit status 2. A
command line that cannot be run (an unknown workload, a bad number, a size out of range) is exit status 2
too, with a message that says why.

Reported per workload, implementation and worker count P: median wall time with min/max and quartiles,
T/Ts (time relative to the serial projection), speedup Ts/Tp and efficiency Ts/(P Tp) (libfork paper
Eq. 15-16), and the maximum resident set, fitted to MRSS = a + b M1 P^n (Eq. 17) when there are at least
four worker counts. For the forkjoin pools also, from pool.stats() summed over the workers for the
timed region: steals, steal attempts, heavy fences (membarriers issued while stealing), heavy fences per
successful steal and contended steal attempts. Plots: per workload, speedup, efficiency and memory
against P (plots/<workload>.png) and speedup against the ideal line (plots/<workload>-scaling.png).
)";
}

}  // namespace fjb
