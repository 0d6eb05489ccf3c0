#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "scale.hpp"

namespace fjb {

// What the user asked for on the command line (see help_text()).
struct options {
  std::vector<std::string> workloads;        // empty: every workload that runs at the chosen scale
  std::vector<std::string> implementations;  // empty: every implementation built in
  std::vector<unsigned> workers;             // empty: 1..cores and 2 x cores
  // --size workload=N: problem sizes that replace the scale's, in the order given (checked against the
  // workloads by make_plan).
  std::vector<std::pair<std::string, std::int64_t>> sizes;
  scale size = scale::standard;
  unsigned repetitions = 5;
  std::filesystem::path out = "results";
  bool help = false;
  bool list = false;
};

// A command line fj-bench cannot run: exit status 2 with the message.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[nodiscard]] options parse_options(std::span<char* const> arguments);
[[nodiscard]] std::string help_text();

// The worker counts measured when --workers is not given: every count up to the cores, then one
// oversubscribed.
[[nodiscard]] std::vector<unsigned> default_worker_counts(unsigned cores);

}  // namespace fjb
