#include <forkjoin/forkjoin.hpp>

#include <cstdlib>
#include <optional>
#include <string_view>

#include "sssp.hpp"
#include "teams/fj_team.hpp"
#include "work_counts.hpp"

// Label-correcting SSSP on an fj::priority_group (issue 24): a task relaxes one vertex (relax_vertex, the
// seam) and spawns a task per neighbour it improved, at priority = the neighbour's new tentative distance.
// One implementation per storage: fj-prio-strict (one locked queue), fj-prio-kN (the k-relaxed storage with
// k = N), fj-prio-none (a deque per worker, priorities ignored). The report's work column is the edge
// relaxations against Dijkstra's (docs/performance.md "Search workloads").
namespace fjb::sssp {
namespace {

template <class Group>
struct search {
  const graph* g;
  shared_distances* distances;
  per_worker_counts* relaxations;
  Group* group;
};

template <class Group>
void relax_task(const search<Group>* s, vertex v, distance known) {
  const std::uint64_t relaxed = relax_vertex(*s->g, *s->distances, v, known, [s](vertex u, distance d) {
    s->group->spawn(static_cast<double>(d), relax_task<Group>, s, u, d);
  });
  s->relaxations->add(fj::worker_index(), relaxed);
}

template <class Group, graph_kind Kind>
run_result run(const run_request& request) {
  const graph g = graph_for(Kind, request);
  std::vector<distance> out;
  per_worker_counts relaxations(request.workers);
  fj_team<fj::lazy_pool> team(request.workers);
  const double seconds = team.time([&](fj::lazy_pool& pool) {
    shared_distances distances = unreached_distances(g);
    Group group(pool);
    const search<Group> s{&g, &distances, &relaxations, &group};
    distances[g.source].store(0, std::memory_order_relaxed);  // before the spawn, which publishes it
    group.spawn(0.0, relax_task<Group>, &s, g.source, distance{0});
    group.wait();
    out = plain_distances(distances);
  });
  const dijkstra_result reference = dijkstra(g);
  verify(g, out, relaxations.total(), &reference.distances);
  return {seconds};
}

template <class Group>
struct registrars {
  explicit registrars(std::string_view name) noexcept
      : grid{workload_name(graph_kind::grid), name, run<Group, graph_kind::grid>},
        rmat{workload_name(graph_kind::rmat), name, run<Group, graph_kind::rmat>} {}
  implementation_registrar grid;
  implementation_registrar rmat;
};

const registrars<fj::strict_priority_group> strict{"fj-prio-strict"};
const registrars<fj::relaxed_priority_group<4>> k4{"fj-prio-k4"};
const registrars<fj::relaxed_priority_group<16>> k16{"fj-prio-k16"};
const registrars<fj::relaxed_priority_group<64>> k64{"fj-prio-k64"};
const registrars<fj::relaxed_priority_group<256>> k256{"fj-prio-k256"};
// Without priorities the label-correcting search's work explodes (docs/performance.md "Search workloads": a
// 60 x 60 grid relaxes thousands of times Dijkstra's edges), so at the suite's sizes it would not finish, and
// the suite's answer checks run every implementation. It is registered only when asked for, for runs at small
// sizes: FJB_SSSP_NO_PRIORITY=1 fj-bench --workloads sssp-grid --size sssp-grid=60 --impls fj-prio-none.
std::optional<registrars<fj::no_priority_group>> no_priority_if_asked() noexcept {
  const char* const asked = std::getenv("FJB_SSSP_NO_PRIORITY");
  if (asked == nullptr || std::string_view(asked) != "1") {
    return std::nullopt;
  }
  return std::optional<registrars<fj::no_priority_group>>(std::in_place, "fj-prio-none");
}
const std::optional<registrars<fj::no_priority_group>> none = no_priority_if_asked();

}  // namespace
}  // namespace fjb::sssp
