#include <forkjoin/forkjoin.hpp>

#include <optional>

#include "bipartition.hpp"
#include "teams/fj_team.hpp"
#include "work_counts.hpp"

// Best-first branch and bound with dives on an fj::priority_group (issue 24): a task expands a node (expand,
// the seam), goes on with its child of lower bound and spawns the other child at priority = its lower bound,
// so that the workers start each dive from the most promising node they see. A node whose bound reaches the
// shared best cut is pruned when the dive reaches it. The same task body for every storage, named as in
// sssp/priority.cpp; the report's work column is the nodes expanded against the serial best-first search's.
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
  // A dive: expand x, go on here with its more promising child and spawn the other at its bound, until the
  // dive reaches a leaf or a node that cannot beat the best cut. Every node a dive expands has a bound below
  // the best cut of the time, as a best-first search's would; the dive reaches leaves early, so the best cut
  // falls early, and each expansion spawns at most one task instead of two.
  for (;;) {
    if (x.bound >= s->best->cut()) {
      return;
    }
    s->expanded->add(fj::worker_index(), 1);
    std::optional<node> next;
    expand(
        *s->p, x, s->best->cut(), [s](const node& leaf) { s->best->offer(leaf); },
        [&](const node& child) {
          if (!next) {
            next = child;
            return;
          }
          // Among equal bounds the first child (the vertex on side A) goes on, in every storage alike.
          const bool child_first = child.bound < next->bound;
          const node& later = child_first ? *next : child;
          s->group->spawn(static_cast<double>(later.bound), expand_task<Group>, s, later);
          if (child_first) {
            next = child;
          }
        });
    if (!next) {
      return;
    }
    x = *next;
  }
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
