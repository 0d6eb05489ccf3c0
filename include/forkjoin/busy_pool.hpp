#pragma once
// fj::busy_pool: N workers that never sleep; an idle worker keeps stealing from random victims (weighted by
// topological distance when pinned). Lowest latency, one full core per worker even when there is no work
// (paper III-D, "busy scheduler"). The configuration fj::basic_pool<fj::spin_idle> under its own name
// (basic_pool.hpp).

#include <cstddef>

#include "forkjoin/basic_pool.hpp"
#include "forkjoin/pool_options.hpp"

namespace fj {

class busy_pool : public basic_pool<spin_idle> {
 public:
  // One worker per hardware thread.
  busy_pool() : busy_pool(pool_options{}) {}
  // Throws fj::invalid_config_error for 0 workers.
  explicit busy_pool(std::size_t workers) : busy_pool(pool_options{.workers = workers}) {}
  explicit busy_pool(const pool_options& options) : basic_pool(options, "busy_pool") {}
};

}  // namespace fj
