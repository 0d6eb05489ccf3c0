#pragma once

#include <string>
#include <vector>

#include "options.hpp"
#include "registry.hpp"

namespace fjb {

// The measurements to take, resolved from the options against what was built in.
struct plan {
  std::vector<const workload*> workloads;
  std::vector<const implementation_info*> implementations;  // report order; always includes serial
  std::vector<unsigned> workers;
  scale size;
  unsigned repetitions;
};

// One (workload, implementation, workers) combination; it is measured `repetitions` times.
struct cell {
  const workload* bench;
  const implementation_info* implementation;
  unsigned workers;
};

// Throws usage_error for unknown names or a selection that leaves nothing to run.
[[nodiscard]] plan make_plan(const options& chosen, unsigned cores);

// The cells of one workload: single-worker implementations once at P = 1, the others at every worker count.
[[nodiscard]] std::vector<cell> cells_of(const workload& bench, const plan& chosen);

[[nodiscard]] std::size_t measurement_count(const plan& chosen);

}  // namespace fjb
