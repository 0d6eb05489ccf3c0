#pragma once
// One measurement = one child process (fj-memory --run-one ...), so that the maximum resident set the kernel
// reports for it (wait4's rusage) belongs to that measurement alone.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "workloads.hpp"

namespace fjm {

enum class pool_kind { unit, busy, lazy };

[[nodiscard]] const char* pool_name(pool_kind k) noexcept;
[[nodiscard]] bool parse_pool(const std::string& text, pool_kind& out) noexcept;

struct run_request {
  workload work = workload::fib;
  pool_kind pool = pool_kind::unit;
  std::size_t workers = 1;
  int size = 1;
  bool probe = false;  // serial runs only: record the deepest path (workloads.hpp)
};

struct run_result {
  std::size_t stack_peak_bytes = 0;  // stack_memory::peak() over the run, all stacks of the process
  std::uint64_t steals = 0;
  path_profile profile;  // filled when the request asked for the probe
  long max_rss_kib = 0;  // the child's maximum resident set
};

// The child side: runs the request in this process and prints its figures on stdout. Returns the exit status
// (non-zero for a wrong answer or a bad request).
int run_one(const std::vector<std::string>& arguments);

// The parent side: runs the request in a child process. Throws std::runtime_error if the child fails.
[[nodiscard]] run_result measure(const run_request& request);

}  // namespace fjm
