#pragma once

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "../stopwatch.hpp"

namespace fjb {

// Exactly `workers` TBB threads (the caller counts as one), started before anything is timed.
class tbb_team {
 public:
  explicit tbb_team(unsigned workers)
      : limit_(tbb::global_control::max_allowed_parallelism, workers), arena_(static_cast<int>(workers)) {
    arena_.initialize();
    // TBB starts its threads lazily; a throw-away loop brings them up outside the timed region.
    arena_.execute([] { tbb::parallel_for(0, 1 << 12, [](int) {}); });
  }

  template <class Body>
  [[nodiscard]] double time(Body&& body) {
    return seconds_taken([&] { arena_.execute(body); });
  }

 private:
  tbb::global_control limit_;
  tbb::task_arena arena_;
};

}  // namespace fjb
