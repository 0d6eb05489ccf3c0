#include "bipartition.hpp"
#include "teams/fj_team.hpp"
#include "work_counts.hpp"

namespace fjb::bipartition {
namespace {

// Depth-first branch and bound with plain functions and fj::scope: a task expands one node (expand, the seam
// for priorities) and spawns its children; the deque ignores their bounds. Nodes whose bound reaches the
// shared best cut are pruned when their task starts, as the best may have improved since the spawn.
struct search {
  const problem* p;
  shared_best* best;
  per_worker_counts* expanded;
};

void expand_task(const search* s, node x) {
  if (x.bound >= s->best->cut()) {
    return;
  }
  s->expanded->add(fj::worker_index(), 1);
  fj::scope scope;
  expand(
      *s->p, x, s->best->cut(), [&](const node& leaf) { s->best->offer(leaf); },
      [&](const node& child) { scope.spawn(expand_task, s, child); });  // child.bound would be the priority
  scope.sync();
}

run_result run(const run_request& request) {
  const problem p = problem_for(request);
  per_worker_counts expanded(request.workers);
  fj_team<fj::lazy_pool> team(request.workers);
  solution found{};
  const double seconds = team.time([&](fj::lazy_pool& pool) {
    shared_best best(heuristic(p));
    const search s{&p, &best, &expanded};
    fj::sync_wait(pool, expand_task, &s, root_of(p));
    found = best.get();
  });
  verify(request, p, found, expanded.total());
  return {seconds};
}

const implementation_registrar spawn{"bipartition", "fj-spawn", run};

}  // namespace
}  // namespace fjb::bipartition
