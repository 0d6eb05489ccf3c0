#pragma once
// fj::unit_pool: exactly one worker and no stealing, so every task runs in the serial program's order. The
// worker sleeps while there is nothing to do. Useful as a deterministic baseline and for debugging. The
// configuration fj::basic_pool<fj::sleep_idle, fj::no_victims> with one worker, under its own name
// (basic_pool.hpp).

#include <cstddef>
#include <string>

#include "forkjoin/basic_pool.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/pool_options.hpp"

namespace fj {

class unit_pool : public basic_pool<sleep_idle, no_victims> {
 public:
  // thread_stack_size as in pool_options (0: system default).
  explicit unit_pool(std::size_t thread_stack_size = 0)
      : unit_pool(pool_options{.workers = 1, .thread_stack_size = thread_stack_size}) {}
  // For the other options (stack_budget, pinning). options.workers must be 1, so that a copied multi-worker
  // configuration is an error rather than silently a different pool: fj::invalid_config_error otherwise.
  explicit unit_pool(const pool_options& options) : basic_pool(checked(options), "unit_pool") {}

 private:
  static pool_options checked(const pool_options& options) {
    if (options.workers != 1) {
      throw invalid_config_error("a unit_pool has exactly one worker (pool_options::workers = " +
                                 std::to_string(options.workers) + "; set it to 1)");
    }
    return options;
  }
};

}  // namespace fj
