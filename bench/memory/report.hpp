#pragma once
// fj-memory's results and how they are written: a Markdown report (also printed) and a CSV file.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "measure.hpp"
#include "workloads.hpp"

namespace fjm {

// The serial run of one workload (unit_pool): the reference every parallel run is held against.
struct serial_profile {
  workload work;
  int size;
  std::size_t m1_bytes;  // deepest stack in bytes, frames rounded to the frame alignment
  std::size_t depth;     // deepest path in frames
  std::size_t s1_bytes;  // stack_memory peak of the serial run: stacklet bytes held, headers included
  long max_rss_kib;      // the serial run's maximum resident set
};

// One (workload, pool, worker count): the worst of its repetitions.
struct cell {
  workload work;
  pool_kind pool;
  std::size_t workers;
  int reps;
  std::uint64_t max_steals;
  std::size_t peak_bytes;  // largest stack peak over the repetitions
  long max_rss_kib;        // largest maximum resident set over the repetitions
  long baseline_rss_kib;   // the same pool running fib(1): threads, binary and allocator, no real work
  double p_times_s1;       // P x S1
  double bound_ours;       // Theorem 2 from our per-stack guarantee (bound.hpp), the one checked
  double bound_checked;    // bound_ours x --bound-factor
  double bound_paper;      // the paper's (2c + 3) P M1, reported only
  bool within_bound;       // every repetition's peak <= bound_checked
};

struct settings {
  std::string scale;
  int reps;
  double bound_factor;
  std::string command;
};

void write_markdown(std::ostream& out, const settings& how, const std::vector<serial_profile>& serial,
                    const std::vector<cell>& cells);
void write_csv(std::ostream& out, const std::vector<serial_profile>& serial, const std::vector<cell>& cells);

}  // namespace fjm
