#pragma once

#include <forkjoin/forkjoin.hpp>

#include <stdexcept>
#include <type_traits>

#include "../stopwatch.hpp"

namespace fjb {

// A forkjoin pool of the given kind with `workers` workers; the body receives the pool to sync_wait on.
template <class Pool>
class fj_team {
 public:
  explicit fj_team(unsigned workers) : pool_(make_pool(workers)) { fj::sync_wait(pool_, warm_up); }

  template <class Body>
  [[nodiscard]] double time(const Body& body) {
    return seconds_taken([&] { body(pool_); });
  }

 private:
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
