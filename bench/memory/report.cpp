#include "report.hpp"

#include <cstdio>
#include <string_view>

#include "bound.hpp"

namespace fjm {
namespace {

std::string format(const char* fmt, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, value);
  return buffer;
}

// Bytes as KiB (or MiB, GiB when large), for people; the CSV keeps exact bytes.
std::string human(double bytes) {
  if (bytes >= 10.0 * (1 << 30)) return format("%.1f GiB", bytes / (1 << 30));
  if (bytes >= 10.0 * (1 << 20)) return format("%.1f MiB", bytes / (1 << 20));
  return format("%.1f KiB", bytes / 1024);
}

const serial_profile* serial_of(const std::vector<serial_profile>& serial, workload w) {
  for (const serial_profile& s : serial) {
    if (s.work == w) return &s;
  }
  return nullptr;
}

}  // namespace

void write_markdown(std::ostream& out, const settings& how, const std::vector<serial_profile>& serial,
                    const std::vector<cell>& cells) {
  out << "# fj-memory: stack memory against Theorem 2\n\n";
  out << "Command: `" << how.command << "`  \n";
  out << "Scale " << how.scale << ", " << how.reps
      << " repetition(s) per cell (each in its own process; the worst is shown). Stacklet header c = "
      << k_header_bytes << " B, bottom stacklet B0 = " << k_bottom_bytes << " B.";
  if (how.bound_factor != 1.0)
    out << " **Checked bound scaled by " << how.bound_factor << " (--bound-factor).**";
  out << "\n\n";

  out << "## Serial runs (unit_pool)\n\n";
  out << "M1: deepest stack of the serial run (used bytes, frames rounded to 16 B); N: deepest path in "
         "frames; "
         "S1: stacklet bytes held at the serial run's peak.\n\n";
  out << "| workload | size | M1 | N | M1/N (B/frame) | S1 | S1/M1 | serial max RSS |\n";
  out << "|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const serial_profile& s : serial) {
    const double m1 = static_cast<double>(s.m1_bytes);
    out << "| " << workload_name(s.work) << " | " << s.size << " | " << human(m1) << " | " << s.depth << " | "
        << format("%.1f", m1 / static_cast<double>(s.depth)) << " | "
        << human(static_cast<double>(s.s1_bytes)) << " | "
        << format("%.2f", static_cast<double>(s.s1_bytes) / m1) << " | "
        << human(static_cast<double>(s.max_rss_kib) * 1024) << " |\n";
  }

  out << "\n## Parallel runs\n\n";
  out << "peak: stack_memory peak (all stacks of the process); RSS: the run's maximum resident set, and the "
         "same "
         "pool running fib(1) as a baseline; Thm 2 (ours): P (N (3 B0 + c log2(M1/N + c)) + 8 M1) + 6 P B0, "
         "checked; Thm 2 (paper): (2c + 3) P M1, reported.\n\n";
  out << "| workload | pool | P | steals | peak | max RSS | RSS fib(1) | S1 | P x S1 | peak / (P x S1) | "
         "Thm 2 (ours) | peak / Thm 2 | Thm 2 (paper) | check |\n";
  out << "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const cell& c : cells) {
    const serial_profile* s = serial_of(serial, c.work);
    const double peak = static_cast<double>(c.peak_bytes);
    out << "| " << workload_name(c.work) << " | " << pool_name(c.pool) << " | " << c.workers << " | "
        << c.max_steals << " | " << human(peak) << " | " << human(static_cast<double>(c.max_rss_kib) * 1024)
        << " | " << human(static_cast<double>(c.baseline_rss_kib) * 1024) << " | "
        << human(s != nullptr ? static_cast<double>(s->s1_bytes) : 0) << " | " << human(c.p_times_s1) << " | "
        << format("%.2f", peak / c.p_times_s1) << " | " << human(c.bound_checked) << " | "
        << format("%.2g", peak / c.bound_checked) << " | " << human(c.bound_paper) << " | "
        << (c.within_bound ? "pass" : "**FAIL**") << " |\n";
  }
}

void write_csv(std::ostream& out, const std::vector<serial_profile>& serial, const std::vector<cell>& cells) {
  out << "workload,size,pool,workers,reps,max_steals,stack_peak_bytes,max_rss_kib,baseline_rss_kib,m1_bytes,"
         "depth_frames,s1_bytes,p_times_s1_bytes,peak_over_p_s1,theorem2_ours_bytes,checked_bound_bytes,"
         "theorem2_paper_bytes,within_bound\n";
  for (const cell& c : cells) {
    const serial_profile* s = serial_of(serial, c.work);
    if (s == nullptr) continue;
    out << workload_name(c.work) << ',' << s->size << ',' << pool_name(c.pool) << ',' << c.workers << ','
        << c.reps << ',' << c.max_steals << ',' << c.peak_bytes << ',' << c.max_rss_kib << ','
        << c.baseline_rss_kib << ',' << s->m1_bytes << ',' << s->depth << ',' << s->s1_bytes << ','
        << format("%.0f", c.p_times_s1) << ','
        << format("%.4f", static_cast<double>(c.peak_bytes) / c.p_times_s1) << ','
        << format("%.0f", c.bound_ours) << ',' << format("%.0f", c.bound_checked) << ','
        << format("%.0f", c.bound_paper) << ',' << (c.within_bound ? 1 : 0) << '\n';
  }
}

}  // namespace fjm
