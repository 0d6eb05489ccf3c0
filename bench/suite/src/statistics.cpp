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

// The medians of the runs' steal counters, if every run reported them.
std::optional<steal_summary> summarise_steals(const std::vector<const measurement*>& matching) {
  std::vector<double> steals;
  std::vector<double> attempts;
  std::vector<double> fences;
  std::vector<double> fences_per_steal;
  std::vector<double> contended;
  for (const measurement* run : matching) {
    if (!run->steals) {
      return std::nullopt;
    }
    const steal_counts& counts = *run->steals;
    steals.push_back(static_cast<double>(counts.steals));
    attempts.push_back(static_cast<double>(counts.steal_attempts));
    fences.push_back(static_cast<double>(counts.heavy_fences));
    contended.push_back(static_cast<double>(counts.steals_contended));
    if (counts.steals > 0) {
      fences_per_steal.push_back(static_cast<double>(counts.heavy_fences) /
                                 static_cast<double>(counts.steals));
    }
  }
  if (steals.empty()) {
    return std::nullopt;
  }
  return steal_summary{spread_of(steals).median, spread_of(attempts).median, spread_of(fences).median,
                       spread_of(fences_per_steal).median, spread_of(contended).median};
}

cell_summary summarise_cell(const std::vector<const measurement*>& matching, const cell& wanted) {
  std::vector<double> seconds;
  std::vector<double> rss_mib;
  std::vector<double> work;
  for (const measurement* run : matching) {
    seconds.push_back(run->seconds);
    rss_mib.push_back(static_cast<double>(run->max_rss_kib) / 1024.0);
    if (run->work) {
      work.push_back(static_cast<double>(*run->work));
    }
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {std::string(wanted.implementation->name),
          wanted.workers,
          spread_of(seconds),
          spread_of(rss_mib).median,
          nan,
          nan,
          nan,
          summarise_steals(matching),
          work.size() == matching.size() ? spread_of(work).median : nan,
          nan};
}

void derive_ratios(workload_summary& summary) {
  for (auto& cell : summary.cells) {
    cell.relative = cell.seconds.median / summary.serial_seconds;
    cell.speedup = summary.serial_seconds / cell.seconds.median;
    cell.efficiency = cell.speedup / cell.workers;
    cell.work_relative = cell.work / summary.serial_work;
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
                             parameters_of(chosen, *bench),
                             size_of(chosen, *bench),
                             std::string(bench->info.size.meaning),
                             size_given(chosen, *bench),
                             std::numeric_limits<double>::quiet_NaN(),
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
      summary.serial_work = serial->work;
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
