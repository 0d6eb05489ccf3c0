#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "steal_counts.hpp"

namespace fjb {

// One run of one benchmark in its own process.
struct measurement {
  std::string workload;
  std::string implementation;
  unsigned workers;
  unsigned repetition;  // 1-based
  std::int64_t size;    // the workload's N
  double seconds;
  long max_rss_kib;
  std::optional<steal_counts> steals;  // forkjoin implementations only
  std::optional<std::uint64_t> work;   // workloads that count their work (work_counts.hpp) only
};

}  // namespace fjb
