#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scale.hpp"

namespace fjb {

// One measurement asked of an implementation: the problem size and how many workers to use.
struct run_request {
  scale size;
  unsigned workers;
  // The workload's size parameter N (workload_info::size): its value at `size`, or the one --size chose.
  // The workload's other parameters are those of `size`.
  std::int64_t n;
};

// What an implementation reports; it has verified its answer before returning (see verify.hpp).
struct run_result {
  double seconds;  // wall time of the computation alone: no input set-up, no pool start-up
};

// What N means for a workload and the values --size accepts for it.
struct size_parameter {
  std::string_view meaning;      // e.g. "n of fib(n)"
  std::int64_t (*at)(scale);     // N at each scale
  std::int64_t min;              // smallest N accepted
  std::int64_t max;              // largest N accepted
  std::int64_t multiple_of = 1;  // N must be a multiple of this
  bool power_of_two = false;     // N must be a power of two
};

// Why N is not an acceptable size for the workload, or nullopt if it is.
[[nodiscard]] std::optional<std::string> size_problem(const size_parameter& size, std::int64_t n);

using run_function = run_result (*)(const run_request&);

struct workload_info {
  std::string_view name;
  std::string_view origin;  // which seed document the workload comes from
  std::string_view description;
  int order;  // position in listings and reports
  size_parameter size;
  std::string (*parameters)(scale, std::int64_t n);  // all parameters, with N = n at the scale
  bool (*runs_at)(scale);                            // some trees are only practical at paper scale
};

// An implementation family: how the computation is parallelised. New pools or stealing policies are new rows.
struct implementation_info {
  std::string_view name;
  std::string_view description;
  bool single_worker;  // runs only with P = 1 (the serial projection, the unit pool)
};

struct workload {
  workload_info info;
  std::map<std::string_view, run_function> runs;  // keyed by implementation name
};

[[nodiscard]] constexpr bool every_scale(scale) noexcept { return true; }
[[nodiscard]] constexpr bool paper_scale_only(scale s) noexcept { return s == scale::paper; }

// Every implementation the suite knows, in the order reports list them.
[[nodiscard]] std::span<const implementation_info> known_implementations() noexcept;
[[nodiscard]] const implementation_info* find_implementation(std::string_view name) noexcept;
// Whether any workload has this implementation compiled in (forkjoin, TBB and OpenMP are optional).
[[nodiscard]] bool implementation_built(std::string_view name);

// The registered workloads in report order; each has at least one implementation.
[[nodiscard]] std::vector<const workload*> registered_workloads();
[[nodiscard]] const workload* find_workload(std::string_view name);

// Static objects of these types, one per source file, fill the registry before main runs. Running out of
// memory that early is fatal anyway, hence noexcept.
struct workload_registrar {
  explicit workload_registrar(const workload_info& info) noexcept;
};
struct implementation_registrar {
  implementation_registrar(std::string_view workload_name, std::string_view implementation_name,
                           run_function run) noexcept;
};

}  // namespace fjb
