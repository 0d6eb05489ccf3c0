#include "bipartition.hpp"
#include "stopwatch.hpp"

namespace fjb::bipartition {
namespace {

run_result run(const run_request& request) {
  const problem p = problem_for(request);
  search_result answer{};
  const double seconds = seconds_taken([&] { answer = best_first(p); });
  verify(request, p, answer.best, answer.expanded);
  return {seconds};
}

const implementation_registrar serial{"bipartition", "serial", run};

}  // namespace
}  // namespace fjb::bipartition
