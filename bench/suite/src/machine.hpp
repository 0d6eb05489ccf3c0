#pragma once

#include <string>

namespace fjb {

// What the numbers were measured on and with; printed at the top of every report.
struct machine_info {
  unsigned cores;
  unsigned numa_nodes;
  std::string cpu_model;
  std::string kernel;
  std::string compiler;
  std::string build;         // build type and flags fj-bench was compiled with
  std::string load_average;  // at start: the machine is shared, so say how busy it was
};

[[nodiscard]] machine_info describe_machine();

}  // namespace fjb
