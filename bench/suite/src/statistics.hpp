#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measurement.hpp"
#include "memory_fit.hpp"
#include "plan.hpp"

namespace fjb {

// Order statistics of a handful of repetitions.
struct spread {
  double median;
  double min;
  double max;
  double lower_quartile;
  double upper_quartile;
};

[[nodiscard]] spread spread_of(std::vector<double> values);

// forkjoin's steal counters of a cell: each the median over the repetitions of its sum over the workers.
struct steal_summary {
  double steals;
  double steal_attempts;
  double heavy_fences;
  double heavy_fences_per_steal;  // median of the runs' ratios; NaN if no run stole
  double steals_contended;
};

// The summary of one cell (workload, implementation, workers) with the paper's derived metrics.
struct cell_summary {
  std::string implementation;
  unsigned workers;
  spread seconds;
  double max_rss_mib;                   // median over repetitions
  double relative;                      // Tp / Ts: time relative to the serial projection, lower is better
  double speedup;                       // Ts / Tp, Eq. 15
  double efficiency;                    // speedup / P, Eq. 16
  std::optional<steal_summary> steals;  // forkjoin implementations only
  double work;           // the workload's own work count (work_counts.hpp), median; NaN if none
  double work_relative;  // work / the serial implementation's work; NaN if either is missing
};

struct workload_summary {
  std::string workload;
  std::string parameters;
  std::int64_t size;         // N
  std::string size_meaning;  // what N is (workload_info::size)
  bool size_given;           // N came from --size, not from the scale
  double serial_seconds;     // Ts: median of the serial projection
  double serial_work;        // the serial implementation's median work count; NaN if it counts none
  std::vector<cell_summary> cells;
  std::vector<memory_fit> memory_fits;  // Eq. 17, per implementation with enough worker counts
};

[[nodiscard]] std::vector<workload_summary> summarise(const plan& chosen,
                                                      const std::vector<measurement>& runs);

[[nodiscard]] const cell_summary* find_cell(const workload_summary& summary, std::string_view implementation,
                                            unsigned workers);

}  // namespace fjb
