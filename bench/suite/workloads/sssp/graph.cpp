#include <algorithm>
#include <numeric>
#include <queue>
#include <random>
#include <utility>

#include "sssp.hpp"
#include "work_counts.hpp"

namespace fjb::sssp {
namespace {

// Builds the rows from an edge list (counting sort by source, so the order within a row is the list's).
graph from_edge_list(vertex vertices, const std::vector<std::pair<vertex, edge>>& list, vertex source) {
  graph g;
  g.first.assign(static_cast<std::size_t>(vertices) + 1, 0);
  for (const auto& [from, e] : list) {
    ++g.first[from + 1];
  }
  std::partial_sum(g.first.begin(), g.first.end(), g.first.begin());
  std::vector<std::uint64_t> next(g.first.begin(), g.first.end() - 1);
  g.edges.resize(list.size());
  for (const auto& [from, e] : list) {
    g.edges[next[from]++] = e;
  }
  g.source = source;
  return g;
}

// The seeds differ between the graphs so that no two inputs share random numbers.
constexpr std::uint64_t grid_seed = 2024'11'26;
constexpr std::uint64_t rmat_seed = 1'0057'0019;

}  // namespace

graph make_grid(std::uint32_t side, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::uint32_t> weight(1, grid_max_weight);
  std::vector<std::pair<vertex, edge>> list;
  list.reserve(static_cast<std::size_t>(side) * side * 4);
  const auto at = [side](std::uint32_t row, std::uint32_t column) { return row * side + column; };
  for (std::uint32_t row = 0; row < side; ++row) {
    for (std::uint32_t column = 0; column < side; ++column) {
      // Each road is one weight, the same both ways.
      if (column + 1 < side) {
        const std::uint32_t w = weight(random);
        list.push_back({at(row, column), {at(row, column + 1), w}});
        list.push_back({at(row, column + 1), {at(row, column), w}});
      }
      if (row + 1 < side) {
        const std::uint32_t w = weight(random);
        list.push_back({at(row, column), {at(row + 1, column), w}});
        list.push_back({at(row + 1, column), {at(row, column), w}});
      }
    }
  }
  return from_edge_list(side * side, list, 0);
}

graph make_rmat(std::uint32_t log2_vertices, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  const vertex vertices = vertex{1} << log2_vertices;
  std::vector<vertex> renumber(vertices);
  std::iota(renumber.begin(), renumber.end(), vertex{0});
  std::shuffle(renumber.begin(), renumber.end(), random);
  std::uniform_int_distribution<std::uint32_t> weight(1, rmat_max_weight);
  // The quadrant probabilities a = 0.57, b = 0.19, c = 0.19 in 16-bit fixed point, so that one 64-bit draw
  // chooses four quadrants: cumulative a, a + b and a + b + c.
  constexpr std::uint32_t a = 37'355;
  constexpr std::uint32_t a_b = 49'807;
  constexpr std::uint32_t a_b_c = 62'259;
  const std::uint64_t wanted = std::uint64_t{vertices} * rmat_edge_factor;
  std::vector<std::pair<vertex, edge>> list;
  list.reserve(wanted);
  for (std::uint64_t i = 0; i < wanted; ++i) {
    vertex from = 0;
    vertex to = 0;
    // One quadrant of the adjacency matrix per bit, most significant first.
    std::uint64_t bits = 0;
    for (std::uint32_t level = 0; level < log2_vertices; ++level) {
      if (level % 4 == 0) {
        bits = random();
      }
      const auto r = static_cast<std::uint32_t>(bits & 0xFFFF);
      bits >>= 16;
      const bool lower = r >= a_b;                           // quadrants c and d: the source's bit is 1
      const bool right = (r >= a && r < a_b) || r >= a_b_c;  // quadrants b and d: the target's bit is 1
      from = (from << 1) | static_cast<vertex>(lower);
      to = (to << 1) | static_cast<vertex>(right);
    }
    const std::uint32_t w = weight(random);
    if (from != to) {
      list.push_back({renumber[from], {renumber[to], w}});
    }
  }
  graph g = from_edge_list(vertices, list, 0);
  vertex busiest = 0;
  for (vertex v = 1; v < vertices; ++v) {
    if (g.first[v + 1] - g.first[v] > g.first[busiest + 1] - g.first[busiest]) {
      busiest = v;
    }
  }
  g.source = busiest;
  return g;
}

graph graph_for(graph_kind kind, const run_request& request) {
  const auto n = static_cast<std::uint32_t>(request.n);
  return kind == graph_kind::grid ? make_grid(n, grid_seed) : make_rmat(n, rmat_seed);
}

std::string_view workload_name(graph_kind kind) noexcept {
  return kind == graph_kind::grid ? "sssp-grid" : "sssp-rmat";
}

dijkstra_result dijkstra(const graph& g) {
  dijkstra_result result{std::vector<distance>(g.vertex_count(), unreachable), 0};
  std::vector<distance>& d = result.distances;
  using entry = std::pair<distance, vertex>;
  std::priority_queue<entry, std::vector<entry>, std::greater<>> heap;
  d[g.source] = 0;
  heap.emplace(0, g.source);
  while (!heap.empty()) {
    const auto [known, v] = heap.top();
    heap.pop();
    if (known > d[v]) {
      continue;  // a stale entry: v was settled with a smaller distance
    }
    const std::uint64_t end = g.first[v + 1];
    result.relaxations += end - g.first[v];
    for (std::uint64_t i = g.first[v]; i < end; ++i) {
      const edge e = g.edges[i];
      const distance candidate = known + e.weight;
      if (candidate < d[e.target]) {
        d[e.target] = candidate;
        heap.emplace(candidate, e.target);
      }
    }
  }
  return result;
}

shared_distances unreached_distances(const graph& g) {
  shared_distances d(g.vertex_count());
  for (auto& slot : d) {
    slot.store(unreachable, std::memory_order_relaxed);  // before any task exists: nothing to order
  }
  return d;
}

std::vector<distance> plain_distances(const shared_distances& shared) {
  std::vector<distance> d(shared.size());
  for (std::size_t v = 0; v < shared.size(); ++v) {
    d[v] = shared[v].load(std::memory_order_relaxed);  // after the join: see lower_to
  }
  return d;
}

void verify(const graph& g, const std::vector<distance>& computed, std::uint64_t relaxations,
            const std::vector<distance>* dijkstra_distances) {
  const vertex n = g.vertex_count();
  expect_equal<std::size_t>("SSSP: number of distances", computed.size(), n);
  expect_equal<distance>("SSSP: distance of the source", computed[g.source], 0);
  std::vector<bool> tight(n, false);
  std::uint64_t shortenable = 0;
  for (vertex v = 0; v < n; ++v) {
    if (computed[v] == unreachable) {
      continue;
    }
    for (std::uint64_t i = g.first[v]; i < g.first[v + 1]; ++i) {
      const edge e = g.edges[i];
      const distance through = computed[v] + e.weight;
      shortenable += static_cast<std::uint64_t>(through < computed[e.target]);
      tight[e.target] = tight[e.target] || through == computed[e.target];
    }
  }
  expect_equal<std::uint64_t>("SSSP: edges that would shorten a distance", shortenable, 0);
  std::uint64_t unexplained = 0;
  for (vertex v = 0; v < n; ++v) {
    unexplained += static_cast<std::uint64_t>(v != g.source && computed[v] != unreachable && !tight[v]);
  }
  expect_equal<std::uint64_t>("SSSP: finite distances that no path explains", unexplained, 0);
  if (dijkstra_distances != nullptr) {
    std::uint64_t differ = 0;
    for (vertex v = 0; v < n; ++v) {
      differ += static_cast<std::uint64_t>(computed[v] != (*dijkstra_distances)[v]);
    }
    expect_equal<std::uint64_t>("SSSP: distances that differ from Dijkstra's", differ, 0);
  }
  recorded_work() = relaxations;
}

}  // namespace fjb::sssp
