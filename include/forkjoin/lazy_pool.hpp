#pragma once
// fj::lazy_pool: the default pool. N workers that sleep when there is nothing to do; while any worker is
// running a task, at least one worker per NUMA node stays awake and keeps trying to steal (paper III-D, "lazy
// scheduler", a variation of the adaptive scheduler of its ref. [36]). Idle costs no CPU; work arriving from
// outside (sync_wait, resume_on) wakes its worker. The protocol is docs/protocols/sleep.md. The
// configuration fj::basic_pool<fj::sleep_idle> under its own name (basic_pool.hpp).

#include <cstddef>

#include "forkjoin/basic_pool.hpp"
#include "forkjoin/pool_options.hpp"

namespace fj {

class lazy_pool : public basic_pool<sleep_idle> {
 public:
  // One worker per hardware thread.
  lazy_pool() : lazy_pool(pool_options{}) {}
  // Throws fj::invalid_config_error for 0 workers.
  explicit lazy_pool(std::size_t workers) : lazy_pool(pool_options{.workers = workers}) {}
  explicit lazy_pool(const pool_options& options) : basic_pool(options, "lazy_pool") {}
};

}  // namespace fj
