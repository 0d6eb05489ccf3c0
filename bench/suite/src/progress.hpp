#pragma once

#include <cstddef>
#include <string>

#include "plan.hpp"

namespace fjb {

// Tells the user where the run is. On a terminal one line is rewritten in place; in a log each workload
// gets one line when it finishes.
class progress {
 public:
  explicit progress(std::size_t total);

  void starting(const cell& next, unsigned repetition, unsigned repetitions);
  void workload_done(const workload& bench, double elapsed_seconds);
  void clear_line();

 private:
  std::size_t total_;
  std::size_t done_ = 0;
  bool terminal_;
};

}  // namespace fjb
