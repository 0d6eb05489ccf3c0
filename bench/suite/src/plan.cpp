#include "plan.hpp"

#include <algorithm>
#include <cstdio>

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

std::map<std::string, std::int64_t, std::less<>> checked_sizes(const options& chosen) {
  std::map<std::string, std::int64_t, std::less<>> sizes;
  for (const auto& [name, n] : chosen.sizes) {
    const workload* bench = find_workload(name);
    std::string what = "--size ";
    what += name;
    what += '=';
    what += std::to_string(n);
    if (bench == nullptr) {
      what += ": unknown workload '";
      what += name;
      what += "' (see --list)";
      throw usage_error(what);
    }
    if (const auto problem = size_problem(bench->info.size, n)) {
      throw usage_error(what + ": " + *problem);
    }
    sizes.emplace(name, n);
  }
  return sizes;
}

std::int64_t size_of(const plan& chosen, const workload& bench) {
  const auto found = chosen.sizes.find(bench.info.name);
  return found == chosen.sizes.end() ? bench.info.size.at(chosen.size) : found->second;
}

bool size_given(const plan& chosen, const workload& bench) { return chosen.sizes.contains(bench.info.name); }

std::string parameters_of(const plan& chosen, const workload& bench) {
  return bench.info.parameters(chosen.size, size_of(chosen, bench));
}

plan make_plan(const options& chosen, unsigned cores) {
  reject_unknown_workloads(chosen.workloads);
  reject_unknown_implementations(chosen.implementations);
  plan result{{},
              {},
              chosen.workers.empty() ? default_worker_counts(cores) : chosen.workers,
              chosen.size,
              chosen.repetitions,
              checked_sizes(chosen)};
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
  for (const auto& [name, n] : result.sizes) {
    if (std::none_of(result.workloads.begin(), result.workloads.end(),
                     [&name](const workload* bench) { return bench->info.name == name; })) {
      std::fprintf(stderr, "fj-bench: warning: --size %s=%lld: %s is not among the workloads run\n",
                   name.c_str(), static_cast<long long>(n), name.c_str());
    }
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
