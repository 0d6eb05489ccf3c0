#include <tbb/parallel_for.h>

#include "pfor.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::pfor {
namespace {

run_result run(const run_request& request) {
  const problem p = problem_at(request);
  const std::vector<int> input = shared_input(p.elements);
  std::vector<std::uint64_t> fingerprints(p.iterations, 0);
  tbb_team team(request.workers);
  const double seconds = team.time([&] {
    tbb::parallel_for(std::size_t{0}, p.iterations,
                      [&](std::size_t i) { fingerprints[i] = sort_copy(input); });
  });
  verify(input, fingerprints);
  return {seconds};
}

const implementation_registrar registrar{"pfor", "tbb", run};

}  // namespace
}  // namespace fjb::pfor
