#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <queue>
#include <random>

#include "bipartition.hpp"
#include "work_counts.hpp"

namespace fjb::bipartition {
namespace {

constexpr std::uint64_t graph_seed = 1'0001'0024;

std::uint64_t bit(int v) noexcept { return std::uint64_t{1} << v; }

// Sum of the weights from u to the vertices of `side`.
weight weight_to(const problem& p, int u, std::uint64_t side) noexcept {
  weight sum = 0;
  while (side != 0) {
    sum += p.at(u, std::countr_zero(side));
    side &= side - 1;
  }
  return sum;
}

// A node with `v` added to side A or B (cut updated; bound not).
node with_vertex(const problem& p, node x, int v, bool on_a) noexcept {
  x.cut += weight_to(p, v, on_a ? x.side_b : x.side_a);
  (on_a ? x.side_a : x.side_b) |= bit(v);
  ++x.assigned;
  return x;
}

}  // namespace

problem make_problem(int vertices, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::bernoulli_distribution has_edge(edge_chance);
  std::uniform_int_distribution<weight> edge_weight(1, max_weight);
  problem p{vertices, std::vector<weight>(static_cast<std::size_t>(vertices * vertices), 0), {}};
  for (int u = 0; u < vertices; ++u) {
    for (int v = u + 1; v < vertices; ++v) {
      if (has_edge(random)) {
        const weight w = edge_weight(random);
        p.weights[p.index(u, v)] = w;
        p.weights[p.index(v, u)] = w;
      }
    }
  }
  // Heaviest vertices first: their edges make the bounds grow early.
  std::vector<weight> degree(static_cast<std::size_t>(vertices), 0);
  for (int u = 0; u < vertices; ++u) {
    degree[static_cast<std::size_t>(u)] =
        weight_to(p, u, vertices == 64 ? ~std::uint64_t{0} : bit(vertices) - 1);
  }
  p.order.resize(static_cast<std::size_t>(vertices));
  std::iota(p.order.begin(), p.order.end(), 0);
  std::sort(p.order.begin(), p.order.end(), [&](int u, int v) {
    const weight du = degree[static_cast<std::size_t>(u)];
    const weight dv = degree[static_cast<std::size_t>(v)];
    return du != dv ? du > dv : u < v;
  });
  return p;
}

problem problem_for(const run_request& request) {
  return make_problem(static_cast<int>(request.n), graph_seed);
}

weight lower_bound(const problem& p, const node& x) noexcept {
  const int half = p.vertices / 2;
  const int room_on_a = half - std::popcount(x.side_a);
  std::array<std::int64_t, most_vertices> extra_on_a{};  // cost on A minus cost on B, per unassigned vertex
  std::size_t unassigned = 0;
  std::uint64_t total_on_b = 0;
  for (std::size_t i = static_cast<std::size_t>(x.assigned); i < p.order.size(); ++i) {
    const int u = p.order[i];
    const weight cost_on_a = weight_to(p, u, x.side_b);
    const weight cost_on_b = weight_to(p, u, x.side_a);
    total_on_b += cost_on_b;
    extra_on_a[unassigned++] = std::int64_t{cost_on_a} - std::int64_t{cost_on_b};
  }
  const auto chosen = extra_on_a.begin() + room_on_a;
  std::nth_element(extra_on_a.begin(), chosen, extra_on_a.begin() + static_cast<std::ptrdiff_t>(unassigned));
  const std::int64_t moved = std::accumulate(extra_on_a.begin(), chosen, std::int64_t{0});
  return x.cut + static_cast<weight>(static_cast<std::int64_t>(total_on_b) + moved);
}

node root_of(const problem& p) noexcept {
  node x{0, 0, 0, 0, 0};
  x = with_vertex(p, x, p.order[0], true);
  x.bound = lower_bound(p, x);
  return x;
}

node child_of(const problem& p, const node& x, bool on_a) noexcept {
  node child = with_vertex(p, x, p.order[static_cast<std::size_t>(x.assigned)], on_a);
  const int half = p.vertices / 2;
  const bool a_full = std::popcount(child.side_a) == half;
  if (a_full || std::popcount(child.side_b) == half) {
    while (child.assigned < p.vertices) {
      child = with_vertex(p, child, p.order[static_cast<std::size_t>(child.assigned)], !a_full);
    }
    child.bound = child.cut;
  } else {
    child.bound = lower_bound(p, child);
  }
  return child;
}

weight cut_of(const problem& p, std::uint64_t side_a) {
  weight cut = 0;
  for (int u = 0; u < p.vertices; ++u) {
    if ((side_a & bit(u)) != 0) {
      for (int v = 0; v < p.vertices; ++v) {
        cut += (side_a & bit(v)) == 0 ? p.at(u, v) : 0;
      }
    }
  }
  return cut;
}

solution heuristic(const problem& p) {
  const int half = p.vertices / 2;
  // Greedy: each vertex in order to the side its assigned neighbours pull it to, while there is room.
  node x = root_of(p);
  while (!complete(p, x)) {
    const int v = p.order[static_cast<std::size_t>(x.assigned)];
    const bool a_has_room = std::popcount(x.side_a) < half;
    const bool b_has_room = std::popcount(x.side_b) < half;
    const bool prefer_a = weight_to(p, v, x.side_a) >= weight_to(p, v, x.side_b);
    x = with_vertex(p, x, v, a_has_room && (prefer_a || !b_has_room));
  }
  // Then swap pairs across the cut while a swap lowers it.
  std::uint64_t side_a = x.side_a;
  weight cut = x.cut;
  for (bool improved = true; improved;) {
    improved = false;
    for (int u = 0; u < p.vertices && !improved; ++u) {
      for (int v = 0; v < p.vertices && !improved; ++v) {
        if ((side_a & bit(u)) != 0 && (side_a & bit(v)) == 0) {
          const std::uint64_t swapped = (side_a & ~bit(u)) | bit(v);
          const weight swapped_cut = cut_of(p, swapped);
          if (swapped_cut < cut) {
            side_a = swapped;
            cut = swapped_cut;
            improved = true;
          }
        }
      }
    }
  }
  return {cut, side_a};
}

search_result best_first(const problem& p) {
  search_result result{heuristic(p), 0};
  // Smallest bound first; among equal bounds the deeper node, which is nearer a leaf.
  const auto later = [](const node& x, const node& y) {
    return x.bound != y.bound ? x.bound > y.bound : x.assigned < y.assigned;
  };
  std::priority_queue<node, std::vector<node>, decltype(later)> open(later);
  open.push(root_of(p));
  while (!open.empty()) {
    const node x = open.top();
    open.pop();
    if (x.bound >= result.best.cut) {
      break;  // every open node is at least as bad
    }
    ++result.expanded;
    expand(
        p, x, result.best.cut, [&](const node& leaf) { result.best = {leaf.cut, leaf.side_a}; },
        [&](const node& child) { open.push(child); });
  }
  return result;
}

solution brute_force(const problem& p) {
  const int half = p.vertices / 2;
  const int fixed = p.order[0];
  solution best{~weight{0}, 0};
  const std::uint64_t all = p.vertices == 64 ? ~std::uint64_t{0} : bit(p.vertices) - 1;
  for (std::uint64_t side_a = 0; side_a <= all && p.vertices <= 24; ++side_a) {
    if (std::popcount(side_a) == half && (side_a & bit(fixed)) != 0) {
      const weight cut = cut_of(p, side_a);
      if (cut < best.cut) {
        best = {cut, side_a};
      }
    }
  }
  return best;
}

void verify(const run_request& request, const problem& p, const solution& found, std::uint64_t expanded) {
  expect_equal("bipartition: vertices on side A", std::popcount(found.side_a), p.vertices / 2);
  const std::uint64_t all = p.vertices == 64 ? ~std::uint64_t{0} : bit(p.vertices) - 1;
  expect_equal<std::uint64_t>("bipartition: side A holds vertices of the graph only", found.side_a & ~all, 0);
  expect_equal("bipartition: cut of the partition found", cut_of(p, found.side_a), found.cut);
  expect_equal("bipartition: optimal cut", found.cut, optimum_for(request, p));
  recorded_work() = expanded;
}

}  // namespace fjb::bipartition
