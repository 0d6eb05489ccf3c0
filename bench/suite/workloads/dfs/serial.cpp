#include "dfs.hpp"
#include "stopwatch.hpp"

namespace fjb::dfs {
namespace {

std::uint64_t search(int branching, int depth, std::uint64_t number) {
  if (depth == 0) {
    return number;
  }
  std::uint64_t total = 0;
  for (int child = 0; child < branching; ++child) {
    total += search(branching, depth - 1, child_number(number, branching, child));
  }
  return total;
}

run_result run(const run_request& request) {
  const problem p = problem_at(request);
  std::uint64_t answer = 0;
  const double seconds = seconds_taken([&] { answer = search(p.branching, p.depth, 0); });
  verify(p, answer);
  return {seconds};
}

const implementation_registrar registrar{"dfs", "serial", run};

}  // namespace
}  // namespace fjb::dfs
