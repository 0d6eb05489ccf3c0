#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <vector>

namespace fjb {

// A workload's own count of the work its timed region did, in the workload's unit (SSSP: edge relaxations;
// bipartition: search nodes expanded), or nullopt if the workload counts none. Set by the implementation
// after timing; a --run-one child makes one measurement, so this is that measurement's. The report sets it
// beside the serial implementation's count: their ratio is the wasted (or saved) work.
[[nodiscard]] inline std::optional<std::uint64_t>& recorded_work() noexcept {
  static std::optional<std::uint64_t> last;
  return last;
}

// One counter per worker, each on its own cache line, so that counting costs no shared writes. Only the
// worker that owns a slot adds to it, so a relaxed load and store suffice (no read-modify-write); the total
// is read after the computation has joined, which orders every store before the read.
class per_worker_counts {
 public:
  explicit per_worker_counts(std::size_t workers) : slots_(workers) {}

  void add(std::size_t worker, std::uint64_t amount) noexcept {
    std::atomic<std::uint64_t>& slot = slots_[worker].value;
    slot.store(slot.load(std::memory_order_relaxed) + amount, std::memory_order_relaxed);
  }

  [[nodiscard]] std::uint64_t total() const noexcept {
    std::uint64_t sum = 0;
    for (const auto& slot : slots_) {
      sum += slot.value.load(std::memory_order_relaxed);
    }
    return sum;
  }

 private:
  struct alignas(64) padded_counter {
    std::atomic<std::uint64_t> value{0};
  };
  std::vector<padded_counter> slots_;
};

}  // namespace fjb
