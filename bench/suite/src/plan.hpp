#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
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
  std::map<std::string, std::int64_t, std::less<>> sizes;  // --size, by workload name, checked
};

// The problem size N of a workload in this plan: --size's if given, else the scale's.
[[nodiscard]] std::int64_t size_of(const plan& chosen, const workload& bench);
[[nodiscard]] bool size_given(const plan& chosen, const workload& bench);
// The workload's parameters in this plan (workload_info::parameters at N).
[[nodiscard]] std::string parameters_of(const plan& chosen, const workload& bench);

// Checks --size against the registry; throws usage_error for an unknown workload or a size out of range.
[[nodiscard]] std::map<std::string, std::int64_t, std::less<>> checked_sizes(const options& chosen);

// One (workload, implementation, workers) combination; it is measured `repetitions` times.
struct cell {
  const workload* bench;
  const implementation_info* implementation;
  unsigned workers;
};

// Throws usage_error for unknown names, sizes out of range or a selection that leaves nothing to run.
[[nodiscard]] plan make_plan(const options& chosen, unsigned cores);

// The cells of one workload: single-worker implementations once at P = 1, the others at every worker count.
[[nodiscard]] std::vector<cell> cells_of(const workload& bench, const plan& chosen);

[[nodiscard]] std::size_t measurement_count(const plan& chosen);

}  // namespace fjb
