#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "../machine.hpp"
#include "../measurement.hpp"
#include "../plan.hpp"
#include "../statistics.hpp"

namespace fjb {

// Everything a report is made from.
struct report {
  std::string command_line;
  std::string started_utc;
  machine_info machine;
  plan chosen;
  std::vector<measurement> runs;
  std::vector<workload_summary> summaries;
};

void print_header(std::FILE* out, const report& data);
void print_table(std::FILE* out, const report& data);

void write_csv(const std::filesystem::path& file, const report& data);
void write_json(const std::filesystem::path& file, const report& data);
// `plots` are the images write_plots made, relative to the report's directory.
void write_markdown(const std::filesystem::path& file, const report& data,
                    const std::vector<std::filesystem::path>& plots);

// Two PNGs per workload drawn by gnuplot: plots/<workload>.png (speedup, efficiency, memory against P) and
// plots/<workload>-scaling.png (speedup against P with the ideal line, up to the largest P measured). Returns
// the images written, relative to `directory`; without gnuplot it warns on stderr and returns none.
[[nodiscard]] std::vector<std::filesystem::path> write_plots(const std::filesystem::path& directory,
                                                             const report& data);

}  // namespace fjb
