#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace fjb {

// Time relative to the serial projection (lower is better) that libfork 3.8 and oneTBB reached on the
// project's 2-core reference machine (clang-19 -O3), as quoted in issue 4: the bar forkjoin is held to.
struct reference_row {
  std::string_view workload;
  std::optional<double> libfork_p1;
  std::optional<double> libfork_p2;
  std::optional<double> tbb_p1;
  std::optional<double> tbb_p2;
};

[[nodiscard]] std::span<const reference_row> libfork_reference() noexcept;

// Peak memory of UTS T3L at two workers on the same machine, MiB: libfork 18-19 MB, oneTBB 35 MB.
inline constexpr std::string_view reference_memory_workload = "T3L";
inline constexpr double reference_memory_libfork_mib = 19.0;
inline constexpr double reference_memory_tbb_mib = 35.0;

}  // namespace fjb
