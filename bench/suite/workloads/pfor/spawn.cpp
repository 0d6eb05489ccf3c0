#include "pfor.hpp"
#include "teams/fj_spawn_for.hpp"
#include "teams/fj_team.hpp"

namespace fjb::pfor {
namespace {

// The loop split in halves with fj::scope, down to one iteration, as forkjoin.cpp splits it with tasks.
run_result run(const run_request& request) {
  const problem p = problem_at(request);
  const std::vector<int> input = shared_input(p.elements);
  std::vector<std::uint64_t> fingerprints(p.iterations, 0);
  const auto iteration = [&](std::size_t i) { fingerprints[i] = sort_copy(input); };
  fj_team<fj::lazy_pool> team(request.workers);
  const double seconds = team.time([&](fj::lazy_pool& pool) {
    fj::sync_wait(pool, [&] { fj_spawn_for_each_index(0, p.iterations, 1, iteration); });
  });
  verify(input, fingerprints);
  return {seconds};
}

const implementation_registrar spawn{"pfor", "fj-spawn", run};

}  // namespace
}  // namespace fjb::pfor
