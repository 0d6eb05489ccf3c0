#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "format.hpp"
#include "report.hpp"

namespace fjb {
namespace {

// One fixed colour per implementation, so that every plot reads the same way.
std::string colour_of(const std::string& implementation) {
  static const std::map<std::string, std::string, std::less<>> colours{
      {"serial", "#000000"}, {"fj-busy", "#d62728"}, {"fj-unit", "#ff7f0e"},  {"fj-lazy", "#9467bd"},
      {"tbb", "#1f77b4"},    {"omp", "#2ca02c"},     {"fj-spawn", "#8c564b"},
  };
  const auto found = colours.find(implementation);
  return found == colours.end() ? "#7f7f7f" : found->second;
}

bool gnuplot_available() { return std::system("command -v gnuplot > /dev/null 2>&1") == 0; }

// Columns: P, speedup, efficiency, MRSS MiB, one data block per implementation.
void write_data_blocks(std::ofstream& script, const workload_summary& summary,
                       const std::vector<std::string>& implementations) {
  for (std::size_t i = 0; i < implementations.size(); ++i) {
    script << "$d" << i << " << EOD\n";
    for (const auto& cell : summary.cells) {
      if (cell.implementation == implementations[i]) {
        script << cell.workers << ' ' << cell.speedup << ' ' << cell.efficiency << ' ' << cell.max_rss_mib
               << '\n';
      }
    }
    script << "EOD\n";
  }
}

void write_panel(std::ofstream& script, const std::vector<std::string>& implementations, int column,
                 const std::string& title, const std::string& y_label, const std::string& guide) {
  script << "set title '" << title << "'\nset xlabel 'workers P'\nset ylabel '" << y_label << "'\n";
  script << "plot " << guide;
  for (std::size_t i = 0; i < implementations.size(); ++i) {
    script << ", $d" << i << " using 1:" << column << " with linespoints lw 2 pt 7 lc rgb '"
           << colour_of(implementations[i]) << "' title '" << implementations[i] << "'";
  }
  script << "\n";
}

bool run_gnuplot(const std::filesystem::path& script_file) {
  const std::string command = "gnuplot '" + script_file.string() + "'";
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "fj-bench: warning: gnuplot failed on %s\n", script_file.c_str());
    return false;
  }
  return true;
}

// Speedup Ts/Tp against P for every implementation that runs on more than one worker, with the range over
// the repetitions (Ts / max Tp to Ts / min Tp) and the ideal line speedup = P up to the largest P measured.
std::filesystem::path plot_scaling(const std::filesystem::path& directory, const report& data,
                                   const workload_summary& summary) {
  std::vector<std::string> implementations;
  for (const auto& cell : summary.cells) {
    const implementation_info* info = find_implementation(cell.implementation);
    if (info != nullptr && !info->single_worker &&
        std::find(implementations.begin(), implementations.end(), cell.implementation) ==
            implementations.end()) {
      implementations.push_back(cell.implementation);
    }
  }
  if (implementations.empty() || !std::isfinite(summary.serial_seconds)) {
    return {};
  }
  const unsigned largest = *std::max_element(data.chosen.workers.begin(), data.chosen.workers.end());
  std::filesystem::path image = std::filesystem::path("plots") / (summary.workload + "-scaling.png");
  const std::filesystem::path script_file = directory / "plots" / (summary.workload + "-scaling.gp");
  {
    std::ofstream script(script_file);
    // Columns: P, median speedup, lowest, highest.
    for (std::size_t i = 0; i < implementations.size(); ++i) {
      script << "$d" << i << " << EOD\n";
      for (const auto& cell : summary.cells) {
        if (cell.implementation == implementations[i]) {
          script << cell.workers << ' ' << cell.speedup << ' ' << summary.serial_seconds / cell.seconds.max
                 << ' ' << summary.serial_seconds / cell.seconds.min << '\n';
        }
      }
      script << "EOD\n";
    }
    script << "$ideal << EOD\n1 1\n" << largest << ' ' << largest << "\nEOD\n";
    script << "set terminal pngcairo size 900,650 font 'sans,10'\n";
    script << "set output '" << (directory / image).string() << "'\n";
    script << "set title '" << summary.workload << " (" << summary.parameters
           << "): speedup over the serial projection, Ts = " << milliseconds(summary.serial_seconds)
           << " ms'\n";
    script << "set key top left\nset grid\nset xlabel 'workers P'\nset ylabel 'speedup Ts/Tp'\n";
    // A margin on both sides, so that the range bars at P = 1 and at the largest P are drawn whole.
    const double margin = std::max(0.2, 0.03 * largest);
    script << "set xrange [" << 1 - margin << ":" << largest + margin << "]\n";
    script << "set yrange [0:*]\nset xtics (";
    for (std::size_t i = 0; i < data.chosen.workers.size(); ++i) {
      script << (i == 0 ? "" : ", ") << data.chosen.workers[i];
    }
    script << ")\n";
    script << "plot $ideal with lines dt 2 lw 2 lc rgb '#999999' title 'ideal (speedup = P)'";
    for (std::size_t i = 0; i < implementations.size(); ++i) {
      script << ", $d" << i << " using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '"
             << colour_of(implementations[i]) << "' title '" << implementations[i] << "'";
    }
    script << "\n";
  }
  return run_gnuplot(script_file) ? image : std::filesystem::path{};
}

std::filesystem::path plot_workload(const std::filesystem::path& directory, const report& data,
                                    const workload_summary& summary) {
  std::vector<std::string> implementations;
  for (const auto& cell : summary.cells) {
    if (std::find(implementations.begin(), implementations.end(), cell.implementation) ==
        implementations.end()) {
      implementations.push_back(cell.implementation);
    }
  }
  std::filesystem::path image = std::filesystem::path("plots") / (summary.workload + ".png");
  const std::filesystem::path script_file = directory / "plots" / (summary.workload + ".gp");
  {
    std::ofstream script(script_file);
    write_data_blocks(script, summary, implementations);
    script << "set terminal pngcairo size 1500,520 font 'sans,10'\n";
    script << "set output '" << (directory / image).string() << "'\n";
    script << "set key outside below horizontal\nset bmargin 7\nset grid\nset xrange [0.5:*]\nset yrange "
              "[0:*]\n";
    script << "set xtics (";
    for (std::size_t i = 0; i < data.chosen.workers.size(); ++i) {
      script << (i == 0 ? "" : ", ") << data.chosen.workers[i];
    }
    script << ")\n";
    script << "set multiplot layout 1,3 title '" << summary.workload << " (" << summary.parameters << ")'\n";
    write_panel(script, implementations, 2, "Speedup Ts/Tp (Eq. 15)", "speedup",
                "x with lines dt 2 lc rgb '#999999' title 'ideal'");
    write_panel(script, implementations, 3, "Efficiency (Eq. 16)", "efficiency",
                "1 with lines dt 2 lc rgb '#999999' title 'ideal'");
    write_panel(script, implementations, 4, "Peak memory (MRSS)", "MiB", "NaN notitle");
    script << "unset multiplot\n";
  }
  return run_gnuplot(script_file) ? image : std::filesystem::path{};
}

}  // namespace

std::vector<std::filesystem::path> write_plots(const std::filesystem::path& directory, const report& data) {
  if (!gnuplot_available()) {
    std::fprintf(stderr,
                 "fj-bench: warning: gnuplot not found (apt-get install gnuplot-nox); no plots drawn\n");
    return {};
  }
  std::filesystem::create_directories(directory / "plots");
  std::vector<std::filesystem::path> images;
  for (const auto& summary : data.summaries) {
    if (auto image = plot_workload(directory, data, summary); !image.empty()) {
      images.push_back(image);
    }
    if (auto image = plot_scaling(directory, data, summary); !image.empty()) {
      images.push_back(image);
    }
  }
  return images;
}

}  // namespace fjb
