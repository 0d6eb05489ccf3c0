#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "bipartition.hpp"
#include "teams/tbb_team.hpp"
#include "work_counts.hpp"

namespace fjb::bipartition {
namespace {

// spawn.cpp's depth-first search with a tbb::task_group per node.
struct search {
  const problem* p;
  shared_best* best;
  per_worker_counts* expanded;
};

void expand_task(const search& s, const node& x) {
  if (x.bound >= s.best->cut()) {
    return;
  }
  s.expanded->add(static_cast<std::size_t>(tbb::this_task_arena::current_thread_index()), 1);
  tbb::task_group group;
  expand(
      *s.p, x, s.best->cut(), [&](const node& leaf) { s.best->offer(leaf); },
      [&](const node& child) { group.run([&s, child] { expand_task(s, child); }); });
  group.wait();
}

run_result run(const run_request& request) {
  const problem p = problem_for(request);
  per_worker_counts expanded(request.workers);
  tbb_team team(request.workers);
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

const implementation_registrar registrar{"bipartition", "tbb", run};

}  // namespace
}  // namespace fjb::bipartition
