#include <omp.h>

#include "bipartition.hpp"
#include "teams/omp_team.hpp"
#include "work_counts.hpp"

namespace fjb::bipartition {
namespace {

// spawn.cpp's depth-first search with an omp task per child while a subtree has at least `task_cutoff`
// unassigned vertices, and serially below: with a task per node, libomp at P = 2 took 22 s on the quick graph
// (0.6 s for fj-spawn) on a loaded 2-core machine.
constexpr int task_cutoff = 16;

struct search {
  const problem* p;
  shared_best* best;
  per_worker_counts* expanded;
};

void expand_task(const search& s, const node& x) {
  if (x.bound >= s.best->cut()) {
    return;
  }
  s.expanded->add(static_cast<std::size_t>(omp_get_thread_num()), 1);
  expand(
      *s.p, x, s.best->cut(), [&](const node& leaf) { s.best->offer(leaf); },
      [&](const node& child) {
#pragma omp task firstprivate(child) if (s.p -> vertices - child.assigned >= task_cutoff)
        expand_task(s, child);
      });
#pragma omp taskwait
}

run_result run(const run_request& request) {
  const problem p = problem_for(request);
  per_worker_counts expanded(request.workers);
  omp_team team(request.workers);
  solution found{};
  const double seconds = team.time([&] {
    shared_best best(heuristic(p));
    const search s{&p, &best, &expanded};
    expand_task(s, root_of(p));
    found = best.get();
  });
  verify(request, p, found, expanded.total());
  return {seconds};
}

const implementation_registrar registrar{"bipartition", "omp", run};

}  // namespace
}  // namespace fjb::bipartition
