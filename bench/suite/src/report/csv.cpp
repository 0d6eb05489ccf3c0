#include <fstream>
#include <stdexcept>

#include "report.hpp"

namespace fjb {

void write_csv(const std::filesystem::path& file, const report& data) {
  std::ofstream out(file);
  if (!out) {
    throw std::runtime_error("cannot write " + file.string());
  }
  // The steal counters are empty for implementations that are not forkjoin, work for workloads that do not
  // count it (work_counts.hpp).
  out << "workload,implementation,workers,scale,size,repetition,seconds,max_rss_kib,steals,steal_attempts,"
         "heavy_fences,steals_contended,work\n";
  out.precision(9);
  for (const auto& run : data.runs) {
    out << run.workload << ',' << run.implementation << ',' << run.workers << ',' << name_of(data.chosen.size)
        << ',' << run.size << ',' << run.repetition << ',' << std::fixed << run.seconds << std::defaultfloat
        << ',' << run.max_rss_kib;
    if (run.steals) {
      out << ',' << run.steals->steals << ',' << run.steals->steal_attempts << ',' << run.steals->heavy_fences
          << ',' << run.steals->steals_contended;
    } else {
      out << ",,,,";
    }
    out << ',';
    if (run.work) {
      out << *run.work;
    }
    out << '\n';
  }
}

}  // namespace fjb
