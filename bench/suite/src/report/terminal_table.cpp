#include <string>

#include "bar.hpp"
#include "format.hpp"
#include "report.hpp"

namespace fjb {
namespace {

std::string join_workers(const std::vector<unsigned>& workers) {
  std::string text;
  for (unsigned p : workers) {
    if (!text.empty()) {
      text += ',';
    }
    text += std::to_string(p);
  }
  return text;
}

void print_workload(std::FILE* out, const workload_summary& summary) {
  std::fprintf(out, "\n%s (%s)   Ts = %s ms\n", summary.workload.c_str(), summary.parameters.c_str(),
               milliseconds(summary.serial_seconds).c_str());
  std::fprintf(out, "  %-8s %4s %11s %23s %8s %8s %6s %9s\n", "impl", "P", "median ms", "min - max ms",
               "T/Ts", "speedup", "eff", "MRSS MiB");
  for (const auto& cell : summary.cells) {
    const std::string range = milliseconds(cell.seconds.min) + " - " + milliseconds(cell.seconds.max);
    std::fprintf(out, "  %-8s %4u %11s %23s %8s %8s %6s %9s\n", cell.implementation.c_str(), cell.workers,
                 milliseconds(cell.seconds.median).c_str(), range.c_str(),
                 format_number(cell.relative, "%.2f").c_str(), format_number(cell.speedup, "%.2f").c_str(),
                 format_number(cell.efficiency, "%.2f").c_str(),
                 format_number(cell.max_rss_mib, "%.1f").c_str());
  }
  // forkjoin's steal counters where there was anyone to steal from (medians; the report has them all).
  for (const auto& cell : summary.cells) {
    if (cell.steals && cell.workers > 1) {
      const steal_summary& st = *cell.steals;
      std::fprintf(
          out, "  steals %-8s P=%-3u %s steals, %s attempts, %s heavy fences (%s per steal), %s contended\n",
          cell.implementation.c_str(), cell.workers, format_number(st.steals, "%.0f").c_str(),
          format_number(st.steal_attempts, "%.0f").c_str(), format_number(st.heavy_fences, "%.0f").c_str(),
          format_number(st.heavy_fences_per_steal, "%.2f").c_str(),
          format_number(st.steals_contended, "%.0f").c_str());
    }
  }
  for (const auto& fit : summary.memory_fits) {
    std::fprintf(out, "  Eq. 17 %-8s MRSS = %s + %s M1 P^%s MiB (rms %s)\n", fit.implementation.c_str(),
                 format_number(fit.a_mib, "%.1f").c_str(), format_number(fit.b, "%.3g").c_str(),
                 format_number(fit.n, "%.2f").c_str(), format_number(fit.rms_residual_mib, "%.2f").c_str());
  }
}

void print_bar(std::FILE* out, const report& data) {
  const text_table table = bar_table(data);
  if (table.rows.empty()) {
    return;
  }
  std::fprintf(out,
               "\nagainst the bar: T/Ts here and in libfork's / oneTBB's reference figures (issue 4)\n ");
  for (const auto& heading : table.header) {
    std::fprintf(out, " %*s", heading == table.header.front() ? -9 : static_cast<int>(heading.size()),
                 heading.c_str());
  }
  for (const auto& row : table.rows) {
    std::fprintf(out, "\n ");
    for (std::size_t i = 0; i < row.size(); ++i) {
      std::fprintf(out, " %*s", i == 0 ? -9 : static_cast<int>(table.header[i].size()), row[i].c_str());
    }
  }
  std::fprintf(out, "\n");
  if (const std::string memory = bar_memory_line(data); !memory.empty()) {
    std::fprintf(out, "%s\n", memory.c_str());
  }
}

}  // namespace

void print_header(std::FILE* out, const report& data) {
  const auto& machine = data.machine;
  std::fprintf(out, "fj-bench  scale=%s  reps=%u  workers=%s\n",
               std::string(name_of(data.chosen.size)).c_str(), data.chosen.repetitions,
               join_workers(data.chosen.workers).c_str());
  if (!data.chosen.sizes.empty()) {
    std::string sizes;
    for (const auto& [name, n] : data.chosen.sizes) {
      sizes += (sizes.empty() ? "" : ",") + name + "=" + std::to_string(n);
    }
    std::fprintf(out, "sizes     %s (--size; other workloads at the scale's)\n", sizes.c_str());
  }
  std::fprintf(out, "machine   %u cores, %u NUMA node%s, %s\n", machine.cores, machine.numa_nodes,
               machine.numa_nodes == 1 ? "" : "s", machine.cpu_model.c_str());
  std::fprintf(out, "compiler  %s (%s)\n", machine.compiler.c_str(), machine.build.c_str());
  std::fprintf(out, "system    %s, load average at start %s\n", machine.kernel.c_str(),
               machine.load_average.c_str());
}

void print_table(std::FILE* out, const report& data) {
  std::fprintf(out,
               "\nmedians of %u interleaved runs; T/Ts = time relative to the serial projection (lower is "
               "better); speedup = Ts/Tp; eff = speedup/P\n",
               data.chosen.repetitions);
  for (const auto& summary : data.summaries) {
    print_workload(out, summary);
  }
  print_bar(out, data);
}

}  // namespace fjb
