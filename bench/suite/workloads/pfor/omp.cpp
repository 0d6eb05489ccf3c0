#include "pfor.hpp"
#include "teams/omp_parallel_for.hpp"
#include "teams/omp_team.hpp"

namespace fjb::pfor {
namespace {

run_result run(const run_request& request) {
  const problem p = problem_at(request);
  const std::vector<int> input = shared_input(p.elements);
  std::vector<std::uint64_t> fingerprints(p.iterations, 0);
  omp_team team(request.workers);
  const double seconds = team.time([&] {
    omp_for_each_index(0, p.iterations, 1, [&](std::size_t i) { fingerprints[i] = sort_copy(input); });
  });
  verify(input, fingerprints);
  return {seconds};
}

const implementation_registrar registrar{"pfor", "omp", run};

}  // namespace
}  // namespace fjb::pfor
