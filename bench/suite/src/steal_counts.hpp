#pragma once

#include <cstdint>
#include <optional>

namespace fjb {

// forkjoin's steal counters (fj::worker_stats) summed over a pool's workers, over one timed region.
struct steal_counts {
  std::uint64_t steals = 0;            // continuations stolen
  std::uint64_t steal_attempts = 0;    // deques a thief tried to steal from
  std::uint64_t heavy_fences = 0;      // process-wide fences (membarriers) issued while stealing
  std::uint64_t steals_contended = 0;  // attempts that left work to another thief claiming it
};

// The counters of the last region a forkjoin team timed in this process (fj_team::time records them), or
// nullopt if no forkjoin pool ran. A --run-one child makes one measurement, so this is that measurement's.
[[nodiscard]] inline std::optional<steal_counts>& recorded_steal_counts() noexcept {
  static std::optional<steal_counts> last;
  return last;
}

}  // namespace fjb
