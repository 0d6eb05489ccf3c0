#pragma once

#include <string>
#include <vector>

namespace fjb {

struct child_outcome {
  int exit_status;  // meaningful when !killed_by_signal
  int signal;       // meaningful when killed_by_signal
  bool killed_by_signal;
  std::string output;  // everything the child wrote on stdout
  long max_rss_kib;    // the child's own peak resident set (wait4 rusage)
};

// Runs this very executable again with `arguments` and waits for it; stderr passes through to ours.
[[nodiscard]] child_outcome run_self(const std::vector<std::string>& arguments);

}  // namespace fjb
