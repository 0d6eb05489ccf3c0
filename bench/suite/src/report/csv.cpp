#include <fstream>
#include <stdexcept>

#include "report.hpp"

namespace fjb {

void write_csv(const std::filesystem::path& file, const report& data) {
  std::ofstream out(file);
  if (!out) {
    throw std::runtime_error("cannot write " + file.string());
  }
  out << "workload,implementation,workers,scale,repetition,seconds,max_rss_kib\n";
  out.precision(9);
  for (const auto& run : data.runs) {
    out << run.workload << ',' << run.implementation << ',' << run.workers << ',' << name_of(data.chosen.size)
        << ',' << run.repetition << ',' << std::fixed << run.seconds << std::defaultfloat << ','
        << run.max_rss_kib << '\n';
  }
}

}  // namespace fjb
