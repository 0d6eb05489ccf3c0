#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "registry.hpp"
#include "verify.hpp"

// Single-source shortest paths on generated graphs (seed 001, issue 24): a road-like 2-D grid with random
// weights (`sssp-grid`) and an R-MAT graph with the GAP benchmark suite's parameters (`sssp-rmat`). The
// serial version is Dijkstra's algorithm with a binary heap; the parallel ones are label-correcting (a task
// relaxes one vertex's edges and spawns a task per neighbour it improved) or Δ-stepping. Every answer is
// checked against Dijkstra, and each implementation counts its edge relaxations (the work; the suite reports
// it next to Dijkstra's count, so the ratio is the wasted work).
namespace fjb::sssp {

using vertex = std::uint32_t;
using distance = std::uint64_t;
inline constexpr distance unreachable = std::numeric_limits<distance>::max();

struct edge {
  vertex target;
  std::uint32_t weight;  // at least 1: no zero-weight cycles, so the check below is a proof
};

// Compressed sparse rows: the edges leaving v are edges[first[v]] .. edges[first[v + 1] - 1].
struct graph {
  std::vector<std::uint64_t> first;
  std::vector<edge> edges;
  vertex source = 0;

  [[nodiscard]] vertex vertex_count() const noexcept { return static_cast<vertex>(first.size() - 1); }
};

enum class graph_kind { grid, rmat };

// The inputs, deterministic from their parameters and a fixed seed.
// Grid: side x side vertices, each joined to its four neighbours in both directions, weights uniform in
// [1, grid_max_weight]; the source is a corner.
inline constexpr std::uint32_t grid_max_weight = 1000;
[[nodiscard]] graph make_grid(std::uint32_t side, std::uint64_t seed);
// R-MAT (Chakrabarti et al.), as the GAP suite's Kronecker generator: 2^log2_vertices vertices,
// rmat_edge_factor directed edges per vertex, quadrant probabilities a=0.57, b=0.19, c=0.19 (d=0.05),
// vertex numbers shuffled, self-loops dropped, weights uniform in [1, rmat_max_weight]; the source is the
// vertex with the most edges (the first such).
inline constexpr std::uint32_t rmat_edge_factor = 16;
inline constexpr std::uint32_t rmat_max_weight = 255;
[[nodiscard]] graph make_rmat(std::uint32_t log2_vertices, std::uint64_t seed);

// N: the grid's side, or log2 of the R-MAT graph's vertex count.
[[nodiscard]] constexpr std::int64_t default_grid_side(scale s) noexcept {
  return by_scale<std::int64_t>(s, 320, 700, 1000);
}
[[nodiscard]] constexpr std::int64_t default_rmat_log2(scale s) noexcept {
  return by_scale<std::int64_t>(s, 17, 18, 20);
}
inline constexpr size_parameter grid_size{"side of the square grid", default_grid_side, 2, 4096};
inline constexpr size_parameter rmat_size{"log2 of the vertex count", default_rmat_log2, 4, 24};

// The graph of a request, built before anything is timed.
[[nodiscard]] graph graph_for(graph_kind kind, const run_request& request);
[[nodiscard]] std::string_view workload_name(graph_kind kind) noexcept;

// Δ of the Δ-stepping baseline: a bucket spans this many distance units.
[[nodiscard]] constexpr distance delta_for(graph_kind kind) noexcept {
  return kind == graph_kind::grid ? 2 * grid_max_weight : rmat_max_weight / 16;
}

struct dijkstra_result {
  std::vector<distance> distances;
  std::uint64_t relaxations;  // edges examined: those leaving the vertices reachable from the source
};

// Dijkstra's algorithm with a binary heap (std::priority_queue; a vertex is pushed again when it improves
// and stale entries are skipped when popped).
[[nodiscard]] dijkstra_result dijkstra(const graph& g);

// Distances that tasks on several threads lower with an atomic minimum.
using shared_distances = std::vector<std::atomic<distance>>;
[[nodiscard]] shared_distances unreached_distances(const graph& g);
[[nodiscard]] std::vector<distance> plain_distances(const shared_distances& shared);

// Lowers `slot` to `candidate` if that is smaller; true if it did. Relaxed: a distance publishes nothing
// else (a task receives its vertex and distance as spawn arguments, which the spawn hands over), and the
// results are read after the computation has joined, which orders every store before the reads.
inline bool lower_to(std::atomic<distance>& slot, distance candidate) noexcept {
  distance current = slot.load(std::memory_order_relaxed);
  while (candidate < current) {
    if (slot.compare_exchange_weak(current, candidate, std::memory_order_relaxed,
                                   std::memory_order_relaxed)) {
      return true;
    }
  }
  return false;
}

// The body of one label-correcting task, shared by every task-parallel implementation: the seam where a
// priority scheduler plugs in (issue 24). The task for vertex v, spawned when v's distance became `known`,
// returns at once if v has improved since (another task carries the better distance); otherwise it relaxes
// v's edges and calls spawn(u, d) for every neighbour u it improved to distance d. d is the spawned task's
// priority (smaller is more urgent): fj-spawn ignores it (the work-stealing deque's order), a priority pool
// would pass it on, e.g. spawn = [&](vertex u, distance d) { s.spawn_with_priority(d, task, u, d); }.
// Returns the edges relaxed.
template <class Spawn>
std::uint64_t relax_vertex(const graph& g, shared_distances& distances, vertex v, distance known,
                           const Spawn& spawn) {
  // Relaxed, as in lower_to: a stale value costs only a redundant relaxation.
  if (distances[v].load(std::memory_order_relaxed) < known) {
    return 0;
  }
  const std::uint64_t end = g.first[v + 1];
  for (std::uint64_t i = g.first[v]; i < end; ++i) {
    const edge e = g.edges[i];
    const distance candidate = known + e.weight;
    if (lower_to(distances[e.target], candidate)) {
      spawn(e.target, candidate);
    }
  }
  return end - g.first[v];
}

// Checks `computed` against Dijkstra's distances and proves them shortest independently (the source at 0;
// no edge can shorten any distance; every other finite distance is reached by a tight edge, and weights
// are positive, so it is the length of a path). Records the relaxations as the run's work.
void verify(const graph& g, const std::vector<distance>& computed, std::uint64_t relaxations,
            const std::vector<distance>* dijkstra_distances);

// Measures an implementation `Solve(graph, workers, distances out) -> relaxations` on its Team (omp_team or
// tbb_team: built with the worker count, time(body) runs the body on it), then checks it against Dijkstra.
template <class Team, std::uint64_t (*Solve)(const graph&, unsigned, std::vector<distance>&)>
run_result run_on_team(graph_kind kind, const run_request& request) {
  const graph g = graph_for(kind, request);
  std::vector<distance> distances;
  std::uint64_t relaxations = 0;
  Team team(request.workers);
  const double seconds = team.time([&] { relaxations = Solve(g, request.workers, distances); });
  const dijkstra_result reference = dijkstra(g);
  verify(g, distances, relaxations, &reference.distances);
  return {seconds};
}

using graph_run_function = run_result (*)(graph_kind, const run_request&);

// Registers `Run` as implementation `implementation` of both graphs.
template <graph_run_function Run>
class graph_registrars {
 public:
  explicit graph_registrars(std::string_view implementation) noexcept
      : grid_{workload_name(graph_kind::grid), implementation, run_graph<graph_kind::grid>},
        rmat_{workload_name(graph_kind::rmat), implementation, run_graph<graph_kind::rmat>} {}

 private:
  // The registry takes plain function pointers, so the graph is fixed at compile time here.
  template <graph_kind Kind>
  static run_result run_graph(const run_request& request) {
    return Run(Kind, request);
  }

  implementation_registrar grid_;
  implementation_registrar rmat_;
};

}  // namespace fjb::sssp
