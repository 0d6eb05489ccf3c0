#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>

#include "bar.hpp"
#include "format.hpp"
#include "report.hpp"

namespace fjb {
namespace {

void write_machine(std::ofstream& out, const report& data) {
  const auto& machine = data.machine;
  out << "| | |\n|---|---|\n";
  out << "| command | `" << data.command_line << "` |\n";
  out << "| started (UTC) | " << data.started_utc << " |\n";
  out << "| scale | " << name_of(data.chosen.size) << " |\n";
  out << "| repetitions | " << data.chosen.repetitions << " (interleaved; medians reported) |\n";
  if (!data.chosen.sizes.empty()) {
    out << "| sizes (`--size`) |";
    const char* separator = " ";
    for (const auto& [name, n] : data.chosen.sizes) {
      out << separator << name << "=" << n;
      separator = ", ";
    }
    out << " (other workloads: the scale's) |\n";
  }
  out << "| cores / NUMA nodes | " << machine.cores << " / " << machine.numa_nodes << " |\n";
  out << "| CPU | " << machine.cpu_model << " |\n";
  out << "| compiler | " << machine.compiler << " (" << machine.build << ") |\n";
  out << "| system | " << machine.kernel << ", load average at start " << machine.load_average << " |\n\n";
}

void write_bar(std::ofstream& out, const report& data) {
  out << "## Against the bar\n\n"
         "Time relative to the serial projection, T/Ts (lower is better). The libfork 3.8 and oneTBB "
         "reference "
         "figures were measured on the project's 2-core machine (issue 4); the other columns are this run, "
         "at "
         "scale "
      << name_of(data.chosen.size)
      << " (the workloads' sizes are in their sections below; ratios compare across sizes only roughly). "
         "forkjoin's goal is to be below libfork in every cell, and at half of libfork's figure for fib and "
         "integrate.\n\n";
  const text_table table = bar_table(data);
  out << "|";
  for (const auto& heading : table.header) {
    out << " " << heading << " |";
  }
  out << "\n|";
  for (std::size_t i = 0; i < table.header.size(); ++i) {
    out << "---|";
  }
  out << "\n";
  for (const auto& row : table.rows) {
    out << "|";
    for (const auto& cell : row) {
      out << " " << cell << " |";
    }
    out << "\n";
  }
  if (const std::string memory = bar_memory_line(data); !memory.empty()) {
    out << "\n" << memory << "\n";
  }
  out << "\n";
}

// Counts as whole numbers; a median of an even number of runs may end in .5.
std::string count(double value) {
  return format_number(value, std::isfinite(value) && value == std::floor(value) ? "%.0f" : "%.1f");
}

void write_steals(std::ofstream& out, const workload_summary& summary) {
  if (std::none_of(summary.cells.begin(), summary.cells.end(),
                   [](const cell_summary& cell) { return cell.steals.has_value(); })) {
    return;
  }
  out << "\nSteals, from `pool.stats()` summed over the workers for the timed region (median over the "
         "repetitions):\n\n";
  out << "| impl | P | steals | steal attempts | heavy fences | heavy fences / steal | contended attempts "
         "|\n";
  out << "|---|---|---|---|---|---|---|\n";
  for (const auto& cell : summary.cells) {
    if (!cell.steals) {
      continue;
    }
    const steal_summary& s = *cell.steals;
    out << "| " << cell.implementation << " | " << cell.workers << " | " << count(s.steals) << " | "
        << count(s.steal_attempts) << " | " << count(s.heavy_fences) << " | "
        << format_number(s.heavy_fences_per_steal, "%.2f") << " | " << count(s.steals_contended) << " |\n";
  }
}

// The workload's own count of its work (work_counts.hpp), e.g. SSSP's relaxations: more than serial's is
// wasted work.
void write_work(std::ofstream& out, const workload_summary& summary) {
  if (std::none_of(summary.cells.begin(), summary.cells.end(),
                   [](const cell_summary& cell) { return std::isfinite(cell.work); })) {
    return;
  }
  out << "\nWork counted by the workload (median over the repetitions), and relative to the serial "
         "implementation's:\n\n";
  out << "| impl | P | work | work / serial's |\n";
  out << "|---|---|---|---|\n";
  for (const auto& cell : summary.cells) {
    out << "| " << cell.implementation << " | " << cell.workers << " | " << count(cell.work) << " | "
        << format_number(cell.work_relative, "%.3f") << " |\n";
  }
}

void write_workload(std::ofstream& out, const workload_summary& summary,
                    const std::vector<std::filesystem::path>& plots) {
  out << "### " << summary.workload << " (" << summary.parameters << ")\n\n";
  out << "N = " << summary.size << " (" << summary.size_meaning << ", "
      << (summary.size_given ? "from `--size`" : "the scale's")
      << "); Ts = " << milliseconds(summary.serial_seconds) << " ms\n\n";
  out << "| impl | P | median ms | min ms | max ms | IQR ms | T/Ts | speedup | efficiency | MRSS MiB |\n";
  out << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& cell : summary.cells) {
    out << "| " << cell.implementation << " | " << cell.workers << " | " << milliseconds(cell.seconds.median)
        << " | " << milliseconds(cell.seconds.min) << " | " << milliseconds(cell.seconds.max) << " | "
        << milliseconds(cell.seconds.upper_quartile - cell.seconds.lower_quartile) << " | "
        << format_number(cell.relative, "%.2f") << " | " << format_number(cell.speedup, "%.2f") << " | "
        << format_number(cell.efficiency, "%.2f") << " | " << format_number(cell.max_rss_mib, "%.1f")
        << " |\n";
  }
  write_steals(out, summary);
  write_work(out, summary);
  for (const auto& fit : summary.memory_fits) {
    out << "\nEq. 17 fit, " << fit.implementation << ": MRSS = " << format_number(fit.a_mib, "%.1f") << " + "
        << format_number(fit.b, "%.3g") << " M1 P^" << format_number(fit.n, "%.2f") << " MiB (rms residual "
        << format_number(fit.rms_residual_mib, "%.2f") << " MiB)\n";
  }
  for (const auto& plot : plots) {
    if (plot.stem() == summary.workload) {
      out << "\n![" << summary.workload << ": speedup, efficiency and memory](" << plot.generic_string()
          << ")\n";
    } else if (plot.stem() == summary.workload + "-scaling") {
      out << "\n![" << summary.workload << ": speedup against the ideal](" << plot.generic_string() << ")\n";
    }
  }
  out << "\n";
}

}  // namespace

void write_markdown(const std::filesystem::path& file, const report& data,
                    const std::vector<std::filesystem::path>& plots) {
  std::ofstream out(file);
  if (!out) {
    throw std::runtime_error("cannot write " + file.string());
  }
  out << "# fj-bench report\n\n";
  write_machine(out, data);
  write_bar(out, data);
  out << "## Every workload\n\n"
         "Speedup = Ts/Tp and efficiency = speedup/P (libfork paper Eq. 15-16); at P = 1 the efficiency is "
         "Ts/T1, the inverse of the overhead. MRSS is the maximum resident set of a process that ran only "
         "that "
         "benchmark (median over repetitions). Eq. 17 fits MRSS = a + b M1 P^n where at least four worker "
         "counts "
         "were measured. N is the workload's size parameter (`fj-bench --size`). For the forkjoin pools, the "
         "steal table gives `pool.stats()` summed over the workers for the timed region: heavy fences are "
         "the "
         "membarriers thieves issued, and heavy fences per steal is the median of the runs' ratios. The "
         "scaling plot shows speedup against P with the range over the repetitions and the ideal line.\n\n";
  if (data.summaries.empty()) {
    out << "No measurements.\n";
  }
  for (const auto& summary : data.summaries) {
    write_workload(out, summary, plots);
  }
}

}  // namespace fjb
