#include "run_one.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "child_protocol.hpp"
#include "registry.hpp"
#include "steal_counts.hpp"
#include "verify.hpp"
#include "work_counts.hpp"

namespace fjb {
namespace {

struct one_request {
  run_function run;
  run_request request;
};

one_request parse_request(std::span<char* const> arguments) {
  if (arguments.size() != 5) {
    throw std::invalid_argument("--run-one expects: workload implementation workers scale size");
  }
  const workload* chosen = find_workload(arguments[0]);
  if (chosen == nullptr) {
    throw std::invalid_argument(std::string("unknown workload ") + arguments[0]);
  }
  const auto run = chosen->runs.find(arguments[1]);
  if (run == chosen->runs.end()) {
    throw std::invalid_argument(std::string("no implementation ") + arguments[1] + " of " + arguments[0]);
  }
  const std::string_view workers_text = arguments[2];
  unsigned workers = 0;
  const auto parsed =
      std::from_chars(workers_text.data(), workers_text.data() + workers_text.size(), workers);
  const auto size = parse_scale(arguments[3]);
  const std::string_view n_text = arguments[4];
  std::int64_t n = 0;
  const auto parsed_n = std::from_chars(n_text.data(), n_text.data() + n_text.size(), n);
  if (parsed.ec != std::errc{} || workers == 0 || !size || parsed_n.ec != std::errc{} ||
      size_problem(chosen->info.size, n)) {
    throw std::invalid_argument("--run-one: bad worker count, scale or size");
  }
  return {run->second, {*size, workers, n}};
}

}  // namespace

int run_one(std::span<char* const> arguments) {
  // UTS T3L recurses 17844 deep; OpenMP's default worker stacks are too small for the task-per-node version.
  ::setenv("OMP_STACKSIZE", "256M", 0);
  try {
    const auto [run, request] = parse_request(arguments);
    const run_result result = run(request);
    std::fputs(format_result_line({result.seconds, recorded_steal_counts(), recorded_work()}).c_str(),
               stdout);
    return exit_measured;
  } catch (const wrong_answer& error) {
    std::fprintf(stderr, "\n*** WRONG ANSWER *** %s %s P=%s: %s\n", arguments[0], arguments[1], arguments[2],
                 error.what());
    return exit_wrong_answer;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "\nfj-bench --run-one failed: %s\n", error.what());
    return exit_failed;
  }
}

}  // namespace fjb
