#include "bar.hpp"

#include "../reference_figures.hpp"
#include "format.hpp"

namespace fjb {
namespace {

const workload_summary* find_summary(const report& data, std::string_view workload) {
  for (const auto& summary : data.summaries) {
    if (summary.workload == workload) {
      return &summary;
    }
  }
  return nullptr;
}

std::string ratio_at(const workload_summary& summary, std::string_view implementation, unsigned workers) {
  const cell_summary* cell = find_cell(summary, implementation, workers);
  return cell == nullptr ? "-" : format_number(cell->relative, "%.2f");
}

std::string reference(const std::optional<double>& value) {
  return value ? format_number(*value, "%.2f") : "-";
}

// Whether forkjoin's busy pool beat libfork's figure at both P = 1 and P = 2.
std::string verdict(const workload_summary& summary, const reference_row& row) {
  const cell_summary* p1 = find_cell(summary, "fj-busy", 1);
  const cell_summary* p2 = find_cell(summary, "fj-busy", 2);
  if (p1 == nullptr || p2 == nullptr || !row.libfork_p1 || !row.libfork_p2) {
    return "-";
  }
  return p1->relative <= *row.libfork_p1 && p2->relative <= *row.libfork_p2 ? "yes" : "no";
}

}  // namespace

text_table bar_table(const report& data) {
  text_table table{{"workload", "fj-busy P=1", "libfork P=1", "fj-busy P=2", "libfork P=2", "beats libfork",
                    "tbb P=1", "oneTBB ref P=1", "tbb P=2", "oneTBB ref P=2", "omp P=1", "omp P=2"},
                   {}};
  for (const auto& row : libfork_reference()) {
    const workload_summary* summary = find_summary(data, row.workload);
    if (summary == nullptr) {
      continue;
    }
    table.rows.push_back({std::string(row.workload), ratio_at(*summary, "fj-busy", 1),
                          reference(row.libfork_p1), ratio_at(*summary, "fj-busy", 2),
                          reference(row.libfork_p2), verdict(*summary, row), ratio_at(*summary, "tbb", 1),
                          reference(row.tbb_p1), ratio_at(*summary, "tbb", 2), reference(row.tbb_p2),
                          ratio_at(*summary, "omp", 1), ratio_at(*summary, "omp", 2)});
  }
  return table;
}

std::string bar_memory_line(const report& data) {
  const workload_summary* memory = find_summary(data, reference_memory_workload);
  if (memory == nullptr) {
    return {};
  }
  std::string line = "Peak memory of " + std::string(reference_memory_workload) + " at 2 workers (MiB): ";
  for (const auto* implementation : data.chosen.implementations) {
    if (const cell_summary* cell = find_cell(*memory, implementation->name, 2)) {
      line += std::string(implementation->name) + " " + format_number(cell->max_rss_mib, "%.1f") + ", ";
    }
  }
  return line + "against libfork " + format_number(reference_memory_libfork_mib, "%.0f") + " and oneTBB " +
         format_number(reference_memory_tbb_mib, "%.0f") + " on the reference machine (paper-size T3L).";
}

}  // namespace fjb
