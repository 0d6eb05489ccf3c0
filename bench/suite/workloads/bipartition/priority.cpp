#include <forkjoin/forkjoin.hpp>

#include "bipartition.hpp"
#include "teams/fj_team.hpp"
#include "work_counts.hpp"

// Best-first branch and bound on an fj::priority_group (issue 24): a task expands one node (expand, the seam)
// and spawns its children at priority = their lower bound, so that the workers take the most promising node
// they see, as the serial search's heap does. A node whose bound reaches the shared best cut is pruned when
// its task starts. One implementation per storage, named as in sssp/priority.cpp; the report's work column
// is the nodes expanded against the serial best-first search's.
namespace fjb::bipartition {
namespace {

template <class Group>
struct search {
  const problem* p;
  shared_best* best;
  per_worker_counts* expanded;
  Group* group;
};

template <class Group>
void expand_task(const search<Group>* s, node x) {
  if (x.bound >= s->best->cut()) {
    return;
  }
  s->expanded->add(fj::worker_index(), 1);
  expand(
      *s->p, x, s->best->cut(), [s](const node& leaf) { s->best->offer(leaf); },
      [s](const node& child) {
        s->group->spawn(static_cast<double>(child.bound), expand_task<Group>, s, child);
      });
}

template <class Group>
run_result run(const run_request& request) {
  const problem p = problem_for(request);
  per_worker_counts expanded(request.workers);
  fj_team<fj::lazy_pool> team(request.workers);
  solution found{};
  const double seconds = team.time([&](fj::lazy_pool& pool) {
    shared_best best(heuristic(p));
    Group group(pool);
    const search<Group> s{&p, &best, &expanded, &group};
    const node root = root_of(p);
    group.spawn(static_cast<double>(root.bound), expand_task<Group>, &s, root);
    group.wait();
    found = best.get();
  });
  verify(request, p, found, expanded.total());
  return {seconds};
}

const implementation_registrar strict{"bipartition", "fj-prio-strict", run<fj::strict_priority_group>};
const implementation_registrar k4{"bipartition", "fj-prio-k4", run<fj::relaxed_priority_group<4>>};
const implementation_registrar k16{"bipartition", "fj-prio-k16", run<fj::relaxed_priority_group<16>>};
const implementation_registrar k64{"bipartition", "fj-prio-k64", run<fj::relaxed_priority_group<64>>};
const implementation_registrar k256{"bipartition", "fj-prio-k256", run<fj::relaxed_priority_group<256>>};
const implementation_registrar none{"bipartition", "fj-prio-none", run<fj::no_priority_group>};

}  // namespace
}  // namespace fjb::bipartition
