#pragma once
// fj::unit_pool: exactly one worker and no stealing, so every task runs in the serial program's order. The
// worker sleeps while there is nothing to do. Useful as a deterministic baseline and for debugging.

#include <cstddef>

#include "forkjoin/detail/pool_base.hpp"
#include "forkjoin/pool_options.hpp"

namespace fj {

class unit_pool : public detail::pool_base {
 public:
  // thread_stack_size as in pool_options (0: system default).
  explicit unit_pool(std::size_t thread_stack_size = 0)
      : pool_base(
            {.options = {.workers = 1, .thread_stack_size = thread_stack_size, .pinning = pin_policy::none},
             .steal = false,
             .idle = detail::pool_core::idle_policy::sleep,
             .kind = "unit_pool"}) {}
};

}  // namespace fj
