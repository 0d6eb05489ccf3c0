#pragma once
// fj::nearest_first_victims: a victim part (ext/victim_part.hpp) written the way a user would write one, with
// nothing but the public API. Each worker tries the other workers in a fixed round: nearest first by the
// topology's distance, ties broken by going round the workers from its own index upwards, then again from
// the start of the round. On a flat machine that is plain round robin (worker 2 of 4 tries 3, 0, 1, 3, ...);
// on a pinned multi-socket machine a worker tries its own socket's workers before the other socket's, every
// time, where fj::numa_victims only makes far victims rarer.
//
//   fj::basic_pool<fj::sleep_idle, fj::nearest_first_victims> pool(fj::pool_options{
//       .workers = 8, .pinning = fj::pin_policy::cores});
//
// How to write a victim part, step by step (this file follows the steps):
//  1. A class constructible from (std::size_t workers, std::size_t self, const fj::topology& placement): the
//     pool makes one per worker before the workers start. Do the expensive work here (sorting, tables);
//     worker i is core i of `placement`, so placement.distance(self, i) and placement.victim_weights(self)
//     describe worker i. Without pinning the OS moves workers, and the distances are only a guess.
//  2. `std::size_t operator()() noexcept`: the next victim, an index below `workers`; return `self` to skip
//     an attempt. Only worker `self` calls it, so plain members are fine; never when workers < 2.
//  3. Optionally `static constexpr const char* name`: it appears in pool.description() and in the message
//     that stops the process if the part ever returns an index >= workers.
//  4. Check it with `static_assert(fj::victim_part<your_part>)`, and use it as basic_pool's second argument.
//  Test it with a real workload at 1, 2 and 4 workers, and check pool.stats() for steals
//  (tests/unit/basic_pool_test.cpp does both for this part).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "forkjoin/ext/victim_part.hpp"
#include "forkjoin/topology.hpp"

namespace fj {

class nearest_first_victims {
 public:
  static constexpr const char* name = "nearest_first_victims";

  nearest_first_victims(std::size_t workers, std::size_t self, const topology& placement) {
    // Every other worker, counting upwards from self; sorted by distance, ties kept in that order.
    order_.reserve(workers > 0 ? workers - 1 : 0);
    for (std::size_t k = 1; k < workers; ++k) {
      order_.push_back((self + k) % workers);
    }
    std::vector<std::uint32_t> distance(workers, 0);
    for (std::size_t const other : order_) {
      distance[other] = placement.distance(self, other);
    }
    auto const upwards = [&](std::size_t other) { return (other + workers - self) % workers; };
    std::sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
      return distance[a] != distance[b] ? distance[a] < distance[b] : upwards(a) < upwards(b);
    });
    // One worker: the pool never calls the part; keep operator() well defined all the same.
    if (order_.empty()) {
      order_.push_back(self);
    }
  }

  std::size_t operator()() noexcept {
    std::size_t const victim = order_[next_];
    next_ = next_ + 1 == order_.size() ? 0 : next_ + 1;
    return victim;
  }

 private:
  std::vector<std::size_t> order_;  // the round: nearest first
  std::size_t next_ = 0;            // where the round goes on
};

static_assert(victim_part<nearest_first_victims>);

}  // namespace fj
