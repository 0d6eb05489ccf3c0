#pragma once

#include <forkjoin/forkjoin.hpp>

#include <utility>
#include <vector>

#include "sssp.hpp"
#include "work_counts.hpp"

// Label-correcting SSSP as tasks, the algorithm of issue 24's priority storages: each task relaxes one
// vertex (relax_vertex, the seam) and spawns a task per neighbour it improved. With fj::scope the spawns go
// to the work-stealing deque, which runs the newest first: the search goes depth first through long detours
// and corrects them later, and its work grows exponentially with the graph (measured in
// bench/suite/README.md: 100 x 100 grid, 3000 times Dijkstra's time). So fj-bench's fj-spawn runs Δ-stepping
// instead (spawn.cpp), and this version is what a priority pool will run with spawn_with_priority (issue 24);
// tests/search_test.cpp checks it on small graphs.
namespace fjb::sssp {

struct label_correcting_search {
  const graph* g;
  shared_distances* distances;
  per_worker_counts* relaxations;
};

// Tasks nest as deep as a chain of improvements, which on a grid can be most of the graph; past this depth a
// task works through its improvements in a loop of its own instead, so the stack stays bounded.
inline constexpr int spawn_depth_limit = 1000;

inline void relax_without_spawning(const label_correcting_search& s, vertex v, distance known) {
  std::vector<std::pair<vertex, distance>> pending{{v, known}};
  std::uint64_t relaxed = 0;
  while (!pending.empty()) {
    const auto [u, d] = pending.back();
    pending.pop_back();
    relaxed +=
        relax_vertex(*s.g, *s.distances, u, d, [&](vertex w, distance dw) { pending.emplace_back(w, dw); });
  }
  s.relaxations->add(fj::worker_index(), relaxed);
}

// The task for v, spawned when v's distance became `known`, `depth` spawns below the root.
inline void relax_task(const label_correcting_search* s, vertex v, distance known, int depth) {
  if (depth == spawn_depth_limit) {
    relax_without_spawning(*s, v, known);
    return;
  }
  fj::scope scope;
  const std::uint64_t relaxed = relax_vertex(*s->g, *s->distances, v, known, [&](vertex u, distance d) {
    scope.spawn(relax_task, s, u, d, depth + 1);  // d is the priority a priority pool would pass on
  });
  s->relaxations->add(fj::worker_index(), relaxed);
  scope.sync();
}

// Runs the search from g.source on `pool`; the distances are final when it returns. Returns the relaxations.
template <class Pool>
std::uint64_t label_correcting(Pool& pool, const graph& g, unsigned workers, std::vector<distance>& out) {
  shared_distances distances = unreached_distances(g);
  per_worker_counts relaxations(workers);
  const label_correcting_search s{&g, &distances, &relaxations};
  distances[g.source].store(0, std::memory_order_relaxed);  // before the root task: sync_wait publishes it
  fj::sync_wait(pool, relax_task, &s, g.source, distance{0}, 0);
  out = plain_distances(distances);
  return relaxations.total();
}

}  // namespace fjb::sssp
