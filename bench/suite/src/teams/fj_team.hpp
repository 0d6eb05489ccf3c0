#pragma once

#include <forkjoin/forkjoin.hpp>

#include <stdexcept>
#include <type_traits>
#include <vector>

#include "../steal_counts.hpp"
#include "../stopwatch.hpp"

namespace fjb {

// A forkjoin pool of the given kind with `workers` workers; the body receives the pool to sync_wait on.
template <class Pool>
class fj_team {
 public:
  explicit fj_team(unsigned workers) : pool_(make_pool(workers)) { fj::sync_wait(pool_, warm_up); }

  // Also records the steal counters of the timed region (recorded_steal_counts); they are read outside it.
  template <class Body>
  [[nodiscard]] double time(const Body& body) {
    const std::vector<fj::worker_stats> before = pool_.stats();
    const double seconds = seconds_taken([&] { body(pool_); });
    recorded_steal_counts() = counted_since(before, pool_.stats());
    return seconds;
  }

 private:
  static steal_counts counted_since(const std::vector<fj::worker_stats>& before,
                                    const std::vector<fj::worker_stats>& after) {
    steal_counts sum;
    for (std::size_t i = 0; i < after.size(); ++i) {
      const fj::worker_stats start = i < before.size() ? before[i] : fj::worker_stats{};
      sum.steals += after[i].steals - start.steals;
      sum.steal_attempts += after[i].steal_attempts - start.steal_attempts;
      sum.heavy_fences += after[i].heavy_fences - start.heavy_fences;
      sum.steals_contended += after[i].steals_contended - start.steals_contended;
    }
    return sum;
  }

  static fj::task<void> warm_up() { co_return; }

  static Pool make_pool(unsigned workers) {
    if constexpr (std::is_same_v<Pool, fj::unit_pool>) {
      if (workers != 1) {
        throw std::invalid_argument("fj::unit_pool has exactly one worker");
      }
      return Pool{};
    } else {
      return Pool(workers);
    }
  }

  Pool pool_;
};

}  // namespace fjb
