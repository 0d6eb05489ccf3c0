#include "registry.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace fjb {
namespace {

constexpr std::array implementations{
    implementation_info{"serial", "serial projection: the same algorithm with forks made plain calls", true},
    implementation_info{"fj-busy", "forkjoin, fj::busy_pool (spinning thieves)", false},
    implementation_info{"fj-lazy", "forkjoin, fj::lazy_pool (idle workers sleep; the default pool)", false},
    implementation_info{"fj-unit", "forkjoin, fj::unit_pool (one worker, serial order)", true},
    implementation_info{
        "fj-spawn", "forkjoin plain functions: fj::scope spawn/sync (child stealing), fj::lazy_pool", false},
    implementation_info{"fj-prio-strict",
                        "forkjoin priority group, strict storage (one locked queue), fj::lazy_pool", false},
    implementation_info{"fj-prio-k4", "forkjoin priority group, k-relaxed storage, k = 4, fj::lazy_pool",
                        false},
    implementation_info{"fj-prio-k16", "forkjoin priority group, k-relaxed storage, k = 16, fj::lazy_pool",
                        false},
    implementation_info{"fj-prio-k64", "forkjoin priority group, k-relaxed storage, k = 64, fj::lazy_pool",
                        false},
    implementation_info{"fj-prio-k256", "forkjoin priority group, k-relaxed storage, k = 256, fj::lazy_pool",
                        false},
    implementation_info{"fj-prio-none",
                        "forkjoin priority group, no-priority storage (a deque per worker), fj::lazy_pool",
                        false},
    implementation_info{"tbb", "oneTBB: parallel_invoke, task_group or parallel_for in a task_arena", false},
    implementation_info{"omp", "OpenMP tasks: omp task / taskwait, or taskloop", false},
};

// Built during static initialisation from several translation units, hence a function-local static.
std::map<std::string, workload, std::less<>>& registry() {
  static std::map<std::string, workload, std::less<>> instance;
  return instance;
}

[[noreturn]] void registry_corrupt(std::string_view what, std::string_view name) {
  std::fprintf(stderr, "fj-bench: internal error: %.*s '%.*s'\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(name.size()), name.data());
  std::abort();
}

}  // namespace

std::optional<std::string> size_problem(const size_parameter& size, std::int64_t n) {
  const std::string meaning(size.meaning);
  if (n < size.min || n > size.max) {
    return meaning + " must be from " + std::to_string(size.min) + " to " + std::to_string(size.max);
  }
  if (size.multiple_of > 1 && n % size.multiple_of != 0) {
    return meaning + " must be a multiple of " + std::to_string(size.multiple_of);
  }
  if (size.power_of_two && (n & (n - 1)) != 0) {
    return meaning + " must be a power of two";
  }
  return std::nullopt;
}

std::span<const implementation_info> known_implementations() noexcept { return implementations; }

const implementation_info* find_implementation(std::string_view name) noexcept {
  const auto* found = std::find_if(implementations.begin(), implementations.end(),
                                   [name](const implementation_info& impl) { return impl.name == name; });
  return found == implementations.end() ? nullptr : found;
}

bool implementation_built(std::string_view name) {
  return std::any_of(registry().begin(), registry().end(),
                     [name](const auto& entry) { return entry.second.runs.contains(name); });
}

std::vector<const workload*> registered_workloads() {
  std::vector<const workload*> result;
  for (const auto& [name, entry] : registry()) {
    if (entry.info.parameters == nullptr) {
      registry_corrupt("implementations registered for an undescribed workload", name);
    }
    result.push_back(&entry);
  }
  std::sort(result.begin(), result.end(),
            [](const workload* a, const workload* b) { return a->info.order < b->info.order; });
  return result;
}

const workload* find_workload(std::string_view name) {
  const auto found = registry().find(name);
  return found == registry().end() ? nullptr : &found->second;
}

workload_registrar::workload_registrar(const workload_info& info) noexcept {
  registry()[std::string(info.name)].info = info;
}

implementation_registrar::implementation_registrar(std::string_view workload_name,
                                                   std::string_view implementation_name,
                                                   run_function run) noexcept {
  if (find_implementation(implementation_name) == nullptr) {
    registry_corrupt("unknown implementation", implementation_name);
  }
  auto& runs = registry()[std::string(workload_name)].runs;
  if (!runs.emplace(implementation_name, run).second) {
    registry_corrupt("implementation registered twice", implementation_name);
  }
}

}  // namespace fjb
