#pragma once

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <cstddef>

#include "../stopwatch.hpp"

namespace fjb {

// Exactly `workers` TBB threads (the caller counts as one), started before anything is timed. Worker stacks
// are enlarged as a user would for deep recursions (UTS T3L is 17844 levels deep).
class tbb_team {
 public:
  explicit tbb_team(unsigned workers)
      : limit_(tbb::global_control::max_allowed_parallelism, workers),
        stack_(tbb::global_control::thread_stack_size, worker_stack_bytes),
        arena_(static_cast<int>(workers)) {
    arena_.initialize();
    // TBB starts its threads lazily; a throw-away loop brings them up outside the timed region.
    arena_.execute([] { tbb::parallel_for(0, 1 << 12, [](int) {}); });
  }

  template <class Body>
  [[nodiscard]] double time(const Body& body) {
    return seconds_taken([&] { arena_.execute(body); });
  }

 private:
  static constexpr std::size_t worker_stack_bytes = std::size_t{256} << 20;

  tbb::global_control limit_;
  tbb::global_control stack_;
  tbb::task_arena arena_;
};

}  // namespace fjb
