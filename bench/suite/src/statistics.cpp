#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fjb {
namespace {

// Linear interpolation between order statistics (the common "type 7" quantile).
double quantile(const std::vector<double>& sorted, double fraction) {
  const double position = fraction * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const auto above = std::min(below + 1, sorted.size() - 1);
  const double weight = position - static_cast<double>(below);
  return sorted[below] + weight * (sorted[above] - sorted[below]);
}

std::vector<const measurement*> runs_of(const std::vector<measurement>& runs, const cell& wanted) {
  std::vector<const measurement*> matching;
  for (const auto& run : runs) {
    if (run.workload == wanted.bench->info.name && run.implementation == wanted.implementation->name &&
        run.workers == wanted.workers) {
      matching.push_back(&run);
    }
  }
  return matching;
}

cell_summary summarise_cell(const std::vector<const measurement*>& matching, const cell& wanted) {
  std::vector<double> seconds;
  std::vector<double> rss_mib;
  for (const measurement* run : matching) {
    seconds.push_back(run->seconds);
    rss_mib.push_back(static_cast<double>(run->max_rss_kib) / 1024.0);
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {std::string(wanted.implementation->name),
          wanted.workers,
          spread_of(seconds),
          spread_of(rss_mib).median,
          nan,
          nan,
          nan};
}

void derive_ratios(workload_summary& summary) {
  for (auto& cell : summary.cells) {
    cell.relative = cell.seconds.median / summary.serial_seconds;
    cell.speedup = summary.serial_seconds / cell.seconds.median;
    cell.efficiency = cell.speedup / cell.workers;
  }
}

void fit_memory(workload_summary& summary, const plan& chosen) {
  for (const implementation_info* implementation : chosen.implementations) {
    std::vector<memory_point> points;
    for (const auto& cell : summary.cells) {
      if (cell.implementation == implementation->name) {
        points.push_back({static_cast<double>(cell.workers), cell.max_rss_mib});
      }
    }
    if (auto fit = fit_memory_scaling(points)) {
      fit->implementation = std::string(implementation->name);
      summary.memory_fits.push_back(*fit);
    }
  }
}

}  // namespace

spread spread_of(std::vector<double> values) {
  if (values.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan, nan, nan, nan};
  }
  std::sort(values.begin(), values.end());
  return {quantile(values, 0.5), values.front(), values.back(), quantile(values, 0.25),
          quantile(values, 0.75)};
}

std::vector<workload_summary> summarise(const plan& chosen, const std::vector<measurement>& runs) {
  std::vector<workload_summary> summaries;
  for (const workload* bench : chosen.workloads) {
    workload_summary summary{std::string(bench->info.name),
                             bench->info.parameters(chosen.size),
                             std::numeric_limits<double>::quiet_NaN(),
                             {},
                             {}};
    for (const cell& wanted : cells_of(*bench, chosen)) {
      const auto matching = runs_of(runs, wanted);
      if (!matching.empty()) {
        summary.cells.push_back(summarise_cell(matching, wanted));
      }
    }
    if (summary.cells.empty()) {
      continue;
    }
    if (const auto* serial = find_cell(summary, "serial", 1)) {
      summary.serial_seconds = serial->seconds.median;
    }
    derive_ratios(summary);
    fit_memory(summary, chosen);
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

const cell_summary* find_cell(const workload_summary& summary, std::string_view implementation,
                              unsigned workers) {
  const auto found = std::find_if(summary.cells.begin(), summary.cells.end(), [&](const cell_summary& cell) {
    return cell.implementation == implementation && cell.workers == workers;
  });
  return found == summary.cells.end() ? nullptr : &*found;
}

}  // namespace fjb
