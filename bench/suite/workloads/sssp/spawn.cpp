#include "delta_stepping.hpp"
#include "sssp.hpp"
#include "teams/fj_spawn_for.hpp"
#include "teams/fj_team.hpp"

namespace fjb::sssp {
namespace {

// Δ-stepping with plain functions and fj::scope: each round's bucket split in halves by
// fj_spawn_for_each_index, as omp.cpp and tbb.cpp split it with their loops. (The label-correcting tasks of
// label_correcting.hpp are the version for a priority pool; on the deque their work explodes.)
template <graph_kind Kind>
run_result run(const run_request& request) {
  const graph g = graph_for(Kind, request);
  std::vector<distance> distances;
  std::uint64_t relaxations = 0;
  fj_team<fj::lazy_pool> team(request.workers);
  const double seconds = team.time([&](fj::lazy_pool& pool) {
    const auto solve = [&] {
      relaxations = delta_stepping(
          g, delta_for(Kind), request.workers, distances,
          [](std::size_t count, const auto& body) { fj_spawn_for_each_index(0, count, 1, body); });
    };
    fj::sync_wait(pool, solve);
  });
  const dijkstra_result reference = dijkstra(g);
  verify(g, distances, relaxations, &reference.distances);
  return {seconds};
}

const implementation_registrar grid{workload_name(graph_kind::grid), "fj-spawn", run<graph_kind::grid>};
const implementation_registrar rmat{workload_name(graph_kind::rmat), "fj-spawn", run<graph_kind::rmat>};

}  // namespace
}  // namespace fjb::sssp
