#include "plan.hpp"

#include <algorithm>

namespace fjb {
namespace {

bool wanted(const std::vector<std::string>& names, std::string_view name) {
  return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
}

void reject_unknown_workloads(const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (find_workload(name) == nullptr) {
      throw usage_error("unknown workload '" + name + "' (see --list)");
    }
  }
}

void reject_unknown_implementations(const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (find_implementation(name) == nullptr) {
      throw usage_error("unknown implementation '" + name + "' (see --list)");
    }
    if (!implementation_built(name)) {
      throw usage_error("implementation '" + name + "' is not built into this fj-bench (see --list)");
    }
  }
}

}  // namespace

plan make_plan(const options& chosen, unsigned cores) {
  reject_unknown_workloads(chosen.workloads);
  reject_unknown_implementations(chosen.implementations);
  plan result{{},
              {},
              chosen.workers.empty() ? default_worker_counts(cores) : chosen.workers,
              chosen.size,
              chosen.repetitions};
  for (const workload* bench : registered_workloads()) {
    const bool named = !chosen.workloads.empty() && wanted(chosen.workloads, bench->info.name);
    if (named || (chosen.workloads.empty() && bench->info.runs_at(chosen.size))) {
      result.workloads.push_back(bench);
    }
  }
  for (const auto& implementation : known_implementations()) {
    const bool selected =
        implementation.name == "serial" || wanted(chosen.implementations, implementation.name);
    if (selected && implementation_built(implementation.name)) {
      result.implementations.push_back(&implementation);
    }
  }
  if (result.workloads.empty()) {
    throw usage_error("no workload selected runs at scale " + std::string(name_of(chosen.size)));
  }
  return result;
}

std::vector<cell> cells_of(const workload& bench, const plan& chosen) {
  std::vector<cell> cells;
  for (const implementation_info* implementation : chosen.implementations) {
    if (!bench.runs.contains(implementation->name)) {
      continue;
    }
    if (implementation->single_worker) {
      cells.push_back({&bench, implementation, 1});
      continue;
    }
    for (unsigned workers : chosen.workers) {
      cells.push_back({&bench, implementation, workers});
    }
  }
  return cells;
}

std::size_t measurement_count(const plan& chosen) {
  std::size_t count = 0;
  for (const workload* bench : chosen.workloads) {
    count += cells_of(*bench, chosen).size() * chosen.repetitions;
  }
  return count;
}

}  // namespace fjb
