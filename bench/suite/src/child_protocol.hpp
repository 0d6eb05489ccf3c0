#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "steal_counts.hpp"

namespace fjb {

// How fj-bench talks to the copy of itself that runs one measurement:
//   fj-bench --run-one <workload> <implementation> <workers> <scale> <size N>
// The child prints one result line on stdout and exits with one of the statuses below. The line is
//   fjb-result seconds=<s>[ steals=<n> steal_attempts=<n> heavy_fences=<n> steals_contended=<n>][ work=<n>]
// with the steal counters when a forkjoin pool ran (steal_counts.hpp), and the work when the workload counts
// it (work_counts.hpp).
inline constexpr std::string_view run_one_flag = "--run-one";
inline constexpr std::string_view result_prefix = "fjb-result seconds=";

inline constexpr int exit_measured = 0;
inline constexpr int exit_wrong_answer = 3;
inline constexpr int exit_failed = 4;

struct child_result {
  double seconds;
  std::optional<steal_counts> steals;
  std::optional<std::uint64_t> work;
};

[[nodiscard]] std::string format_result_line(const child_result& result);
// nullopt if the output has no well-formed result line.
[[nodiscard]] std::optional<child_result> parse_result_line(std::string_view child_output);

}  // namespace fjb
