#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "report.hpp"

namespace fjb {
namespace {

std::string quoted(std::string_view text) {
  std::string result = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      result += '\\';
      result += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      result += escaped;
    } else {
      result += c;
    }
  }
  return result + "\"";
}

// JSON has no NaN: a value that could not be computed is null.
std::string number(double value) {
  if (!std::isfinite(value)) {
    return "null";
  }
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

std::string spread_object(const spread& s) {
  return "{\"median\": " + number(s.median) + ", \"min\": " + number(s.min) + ", \"max\": " + number(s.max) +
         ", \"q1\": " + number(s.lower_quartile) + ", \"q3\": " + number(s.upper_quartile) + "}";
}

std::string steal_object(const std::optional<steal_counts>& counts) {
  if (!counts) {
    return "null";
  }
  return "{\"steals\": " + std::to_string(counts->steals) +
         ", \"steal_attempts\": " + std::to_string(counts->steal_attempts) +
         ", \"heavy_fences\": " + std::to_string(counts->heavy_fences) +
         ", \"steals_contended\": " + std::to_string(counts->steals_contended) + "}";
}

std::string steal_summary_object(const std::optional<steal_summary>& s) {
  if (!s) {
    return "null";
  }
  return "{\"steals\": " + number(s->steals) + ", \"steal_attempts\": " + number(s->steal_attempts) +
         ", \"heavy_fences\": " + number(s->heavy_fences) +
         ", \"heavy_fences_per_steal\": " + number(s->heavy_fences_per_steal) +
         ", \"steals_contended\": " + number(s->steals_contended) + "}";
}

void write_machine(std::ofstream& out, const machine_info& machine) {
  out << "  \"machine\": {\"cores\": " << machine.cores << ", \"numa_nodes\": " << machine.numa_nodes
      << ", \"cpu\": " << quoted(machine.cpu_model) << ", \"kernel\": " << quoted(machine.kernel)
      << ", \"compiler\": " << quoted(machine.compiler) << ", \"build\": " << quoted(machine.build)
      << ", \"load_average_at_start\": " << quoted(machine.load_average) << "},\n";
}

void write_settings(std::ofstream& out, const report& data) {
  out << "  \"command\": " << quoted(data.command_line) << ",\n";
  out << "  \"started_utc\": " << quoted(data.started_utc) << ",\n";
  out << "  \"scale\": " << quoted(name_of(data.chosen.size)) << ",\n";
  out << "  \"repetitions\": " << data.chosen.repetitions << ",\n";
  out << "  \"workers\": [";
  for (std::size_t i = 0; i < data.chosen.workers.size(); ++i) {
    out << (i == 0 ? "" : ", ") << data.chosen.workers[i];
  }
  out << "],\n";
  out << "  \"sizes_given\": {";
  bool first = true;
  for (const auto& [name, n] : data.chosen.sizes) {
    out << (first ? "" : ", ") << quoted(name) << ": " << n;
    first = false;
  }
  out << "},\n";
}

void write_runs(std::ofstream& out, const report& data) {
  out << "  \"runs\": [\n";
  for (std::size_t i = 0; i < data.runs.size(); ++i) {
    const auto& run = data.runs[i];
    out << "    {\"workload\": " << quoted(run.workload)
        << ", \"implementation\": " << quoted(run.implementation) << ", \"workers\": " << run.workers
        << ", \"size\": " << run.size << ", \"repetition\": " << run.repetition
        << ", \"seconds\": " << number(run.seconds) << ", \"max_rss_kib\": " << run.max_rss_kib
        << ", \"steal_stats\": " << steal_object(run.steals)
        << ", \"work\": " << (run.work ? std::to_string(*run.work) : std::string("null")) << "}"
        << (i + 1 == data.runs.size() ? "\n" : ",\n");
  }
  out << "  ],\n";
}

void write_summary(std::ofstream& out, const workload_summary& summary, bool last) {
  out << "    {\"workload\": " << quoted(summary.workload)
      << ", \"parameters\": " << quoted(summary.parameters) << ", \"size\": " << summary.size
      << ", \"size_meaning\": " << quoted(summary.size_meaning)
      << ", \"size_from\": " << quoted(summary.size_given ? "--size" : "scale")
      << ", \"serial_seconds\": " << number(summary.serial_seconds) << ",\n     \"cells\": [\n";
  for (std::size_t i = 0; i < summary.cells.size(); ++i) {
    const auto& cell = summary.cells[i];
    out << "       {\"implementation\": " << quoted(cell.implementation) << ", \"workers\": " << cell.workers
        << ", \"seconds\": " << spread_object(cell.seconds)
        << ", \"max_rss_mib\": " << number(cell.max_rss_mib)
        << ", \"relative_to_serial\": " << number(cell.relative) << ", \"speedup\": " << number(cell.speedup)
        << ", \"efficiency\": " << number(cell.efficiency)
        << ", \"steal_stats\": " << steal_summary_object(cell.steals) << ", \"work\": " << number(cell.work)
        << ", \"work_relative_to_serial\": " << number(cell.work_relative) << "}"
        << (i + 1 == summary.cells.size() ? "\n" : ",\n");
  }
  out << "     ],\n     \"memory_fits\": [";
  for (std::size_t i = 0; i < summary.memory_fits.size(); ++i) {
    const auto& fit = summary.memory_fits[i];
    out << (i == 0 ? "" : ", ") << "{\"implementation\": " << quoted(fit.implementation)
        << ", \"a_mib\": " << number(fit.a_mib) << ", \"b\": " << number(fit.b)
        << ", \"n\": " << number(fit.n) << ", \"rms_residual_mib\": " << number(fit.rms_residual_mib) << "}";
  }
  out << "]}" << (last ? "\n" : ",\n");
}

}  // namespace

void write_json(const std::filesystem::path& file, const report& data) {
  std::ofstream out(file);
  if (!out) {
    throw std::runtime_error("cannot write " + file.string());
  }
  out << "{\n";
  write_settings(out, data);
  write_machine(out, data.machine);
  write_runs(out, data);
  out << "  \"summaries\": [\n";
  for (std::size_t i = 0; i < data.summaries.size(); ++i) {
    write_summary(out, data.summaries[i], i + 1 == data.summaries.size());
  }
  out << "  ]\n}\n";
}

}  // namespace fjb
