#include "delta_stepping.hpp"
#include "sssp.hpp"
#include "teams/omp_parallel_for.hpp"
#include "teams/omp_team.hpp"

namespace fjb::sssp {
namespace {

// Δ-stepping with an OpenMP taskloop per round (omp_for_each_index: the team runs the body in omp single).
template <graph_kind Kind>
std::uint64_t solve(const graph& g, unsigned workers, std::vector<distance>& out) {
  return delta_stepping(g, delta_for(Kind), workers, out,
                        [](std::size_t count, const auto& body) { omp_for_each_index(0, count, 1, body); });
}

template <graph_kind Kind>
run_result run(const run_request& request) {
  return run_on_team<omp_team, solve<Kind>>(Kind, request);
}

const implementation_registrar grid{workload_name(graph_kind::grid), "omp", run<graph_kind::grid>};
const implementation_registrar rmat{workload_name(graph_kind::rmat), "omp", run<graph_kind::rmat>};

}  // namespace
}  // namespace fjb::sssp
