#pragma once

#include <string>

namespace fjb {

// One run of one benchmark in its own process.
struct measurement {
  std::string workload;
  std::string implementation;
  unsigned workers;
  unsigned repetition;  // 1-based
  double seconds;
  long max_rss_kib;
};

}  // namespace fjb
