#pragma once

#include <stdexcept>
#include <vector>

#include "measurement.hpp"
#include "plan.hpp"

namespace fjb {

// A benchmark gave a wrong answer, crashed or could not run: the whole run stops.
class benchmark_failed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Takes every measurement of the plan, one child process each. Within a workload the repetitions go round
// robin over all its cells, so that slow drift of a shared machine hits every implementation alike.
[[nodiscard]] std::vector<measurement> run_plan(const plan& chosen);

}  // namespace fjb
