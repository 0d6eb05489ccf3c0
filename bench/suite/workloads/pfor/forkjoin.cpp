#include <forkjoin/algorithm.hpp>

#include "pfor.hpp"
#include "teams/fj_team.hpp"

namespace fjb::pfor {
namespace {

template <class Pool>
run_result run(const run_request& request) {
  const problem p = problem_at(request);
  const std::vector<int> input = shared_input(p.elements);
  std::vector<std::uint64_t> fingerprints(p.iterations, 0);
  const auto iteration = [&](std::size_t i) { fingerprints[i] = sort_copy(input); };
  fj_team<Pool> team(request.workers);
  // Each iteration is a whole sort (milliseconds): split down to single iterations (docs/algorithms.md
  // "Grain").
  const double seconds = team.time(
      [&](Pool& pool) { fj::for_each_index(pool, std::size_t{0}, p.iterations, iteration, fj::grain(1)); });
  verify(input, fingerprints);
  return {seconds};
}

const implementation_registrar busy{"pfor", "fj-busy", run<fj::busy_pool>};
const implementation_registrar lazy{"pfor", "fj-lazy", run<fj::lazy_pool>};
const implementation_registrar unit{"pfor", "fj-unit", run<fj::unit_pool>};

}  // namespace
}  // namespace fjb::pfor
