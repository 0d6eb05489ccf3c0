#include <tbb/parallel_for.h>

#include "delta_stepping.hpp"
#include "sssp.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::sssp {
namespace {

// Δ-stepping with a tbb::parallel_for per round.
template <graph_kind Kind>
std::uint64_t solve(const graph& g, unsigned workers, std::vector<distance>& out) {
  return delta_stepping(g, delta_for(Kind), workers, out, [](std::size_t count, const auto& body) {
    tbb::parallel_for(std::size_t{0}, count, [&](std::size_t c) { body(c); });
  });
}

template <graph_kind Kind>
run_result run(const run_request& request) {
  return run_on_team<tbb_team, solve<Kind>>(Kind, request);
}

const implementation_registrar grid{workload_name(graph_kind::grid), "tbb", run<graph_kind::grid>};
const implementation_registrar rmat{workload_name(graph_kind::rmat), "tbb", run<graph_kind::rmat>};

}  // namespace
}  // namespace fjb::sssp
