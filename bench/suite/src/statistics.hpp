#pragma once

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

// The summary of one cell (workload, implementation, workers) with the paper's derived metrics.
struct cell_summary {
  std::string implementation;
  unsigned workers;
  spread seconds;
  double max_rss_mib;  // median over repetitions
  double relative;     // Tp / Ts: time relative to the serial projection, lower is better
  double speedup;      // Ts / Tp, Eq. 15
  double efficiency;   // speedup / P, Eq. 16
};

struct workload_summary {
  std::string workload;
  std::string parameters;
  double serial_seconds;  // Ts: median of the serial projection
  std::vector<cell_summary> cells;
  std::vector<memory_fit> memory_fits;  // Eq. 17, per implementation with enough worker counts
};

[[nodiscard]] std::vector<workload_summary> summarise(const plan& chosen,
                                                      const std::vector<measurement>& runs);

[[nodiscard]] const cell_summary* find_cell(const workload_summary& summary, std::string_view implementation,
                                            unsigned workers);

}  // namespace fjb
