#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fjb {

// How fj-bench talks to the copy of itself that runs one measurement:
//   fj-bench --run-one <workload> <implementation> <workers> <scale>
// The child prints one result line on stdout and exits with one of the statuses below.
inline constexpr std::string_view run_one_flag = "--run-one";
inline constexpr std::string_view result_prefix = "fjb-result seconds=";

inline constexpr int exit_measured = 0;
inline constexpr int exit_wrong_answer = 3;
inline constexpr int exit_failed = 4;

[[nodiscard]] std::string format_result_line(double seconds);
[[nodiscard]] std::optional<double> parse_result_line(std::string_view child_output);

}  // namespace fjb
