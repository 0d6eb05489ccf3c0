#pragma once

#include <omp.h>

#include "../stopwatch.hpp"

namespace fjb {

// A team of `workers` OpenMP threads; the body runs on one of them (omp single) and spawns tasks.
class omp_team {
 public:
  explicit omp_team(unsigned workers) : workers_(static_cast<int>(workers)) {
    omp_set_dynamic(0);
    // The first parallel region creates the threads; do that outside the timed region.
#pragma omp parallel num_threads(workers_)
    {
    }
  }

  template <class Body>
  [[nodiscard]] double time(const Body& body) {
    return seconds_taken([&] {
#pragma omp parallel num_threads(workers_)
#pragma omp single
      body();
    });
  }

 private:
  int workers_;
};

}  // namespace fjb
