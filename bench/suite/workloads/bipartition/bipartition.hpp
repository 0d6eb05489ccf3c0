#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "registry.hpp"
#include "verify.hpp"

// Graph bipartitioning by branch and bound (seed 001, issue 24): split the vertices of a random weighted
// graph into two halves of equal size so that the edges between the halves weigh as little as possible.
// A search node assigns the first few vertices of a fixed order (heaviest first) to a side; its children
// assign the next one. The serial version is best-first (the node with the smallest lower bound next); the
// parallel one is depth-first with a shared best cut. Each counts the nodes it expands.
namespace fjb::bipartition {

using weight = std::uint32_t;
inline constexpr int most_vertices = 64;  // a side is a 64-bit mask

struct problem {
  int vertices;                 // even
  std::vector<weight> weights;  // vertices x vertices, symmetric, 0 where there is no edge
  std::vector<int> order;       // the order in which the search assigns vertices
  // Where the weight of edge (u, v) is kept.
  [[nodiscard]] std::size_t index(int u, int v) const noexcept {
    return static_cast<std::size_t>(u) * static_cast<std::size_t>(vertices) + static_cast<std::size_t>(v);
  }
  [[nodiscard]] weight at(int u, int v) const noexcept { return weights[index(u, v)]; }
};

// G(n, p) with edge_chance p and weights uniform in [1, max_weight], deterministic from the seed.
inline constexpr double edge_chance = 0.3;
inline constexpr weight max_weight = 100;
[[nodiscard]] problem make_problem(int vertices, std::uint64_t seed);

// N: the number of vertices.
[[nodiscard]] constexpr std::int64_t default_vertices(scale s) noexcept {
  return by_scale<std::int64_t>(s, 38, 44, 48);
}
inline constexpr size_parameter problem_size{"vertices of the graph", default_vertices, 4, most_vertices, 2};
[[nodiscard]] problem problem_for(const run_request& request);

struct node {
  std::uint64_t side_a;  // vertices assigned to side A
  std::uint64_t side_b;
  int assigned;  // order[0 .. assigned) are assigned
  weight cut;    // weight of the edges between assigned vertices on different sides
  weight bound;  // no completion of this node cuts less (lower_bound)
};

[[nodiscard]] inline bool complete(const problem& p, const node& x) noexcept {
  return x.assigned == p.vertices;
}

// The lower bound of a node: its cut, plus for the unassigned vertices the cheapest balanced way to place
// them counting only their edges to assigned vertices (an unassigned vertex u placed on side A cuts its
// edges to B, placed on B its edges to A; edges between unassigned vertices are left out, so the bound never
// exceeds a completion's cut). With room for r_A more vertices on A, the cheapest placement puts on A the
// r_A vertices whose cost on A minus cost on B is smallest: a sort, so the bound is exact for this
// relaxation.
[[nodiscard]] weight lower_bound(const problem& p, const node& x) noexcept;

// The root: order[0] is on side A (the two sides are interchangeable, so this halves the tree).
[[nodiscard]] node root_of(const problem& p) noexcept;

struct solution {
  weight cut;
  std::uint64_t side_a;
};

// A greedy placement improved by pairwise swaps: the first incumbent of every implementation, so that all of
// them prune from the start alike.
[[nodiscard]] solution heuristic(const problem& p);

// The body of one search task, shared by every implementation: the seam where a priority scheduler plugs in
// (issue 24). Expands x: each child assigns the next vertex to a side with room; a child with a full side
// gets the rest on the other side at once, so it is complete. Calls leaf(child) for a complete child that
// cuts less than `best` and spawn(child) for another child whose bound is below `best`. The spawned child's
// priority is child.bound (smaller is more urgent): the serial search's heap orders by it, fj-spawn ignores
// it, a priority pool would pass it on (s.spawn_with_priority(child.bound, task, child)).
template <class Leaf, class Spawn>
void expand(const problem& p, const node& x, weight best, const Leaf& leaf, const Spawn& spawn);

// The optimum of the problem at a request: recorded for each scale's default size (workload.cpp), otherwise
// computed by the serial search here (after timing).
[[nodiscard]] weight optimum_for(const run_request& request, const problem& p);

// Best-first branch and bound: the serial search, and the reference for other sizes.
struct search_result {
  solution best;
  std::uint64_t expanded;
};
[[nodiscard]] search_result best_first(const problem& p);

// Every balanced bipartition (with order[0] on A), for small graphs: the test's reference.
[[nodiscard]] solution brute_force(const problem& p);

// The cut of a side_a mask; checks that it holds half the vertices.
[[nodiscard]] weight cut_of(const problem& p, std::uint64_t side_a);

// Checks the solution: half the vertices on each side, its cut as claimed and equal to the optimum; records
// the expanded nodes as the run's work.
void verify(const run_request& request, const problem& p, const solution& found, std::uint64_t expanded);

// The best solution found so far, shared by parallel searches. The cut alone is read for pruning, relaxed:
// it publishes nothing (a stale value only prunes less); the solution is replaced under the mutex, and read
// after the search has joined.
class shared_best {
 public:
  explicit shared_best(solution first) : best_(first), cut_(first.cut) {}

  [[nodiscard]] weight cut() const noexcept { return cut_.load(std::memory_order_relaxed); }

  void offer(const node& x) {
    if (x.cut >= cut()) {
      return;
    }
    const std::lock_guard<std::mutex> hold(mutex_);
    if (x.cut < best_.cut) {
      best_ = {x.cut, x.side_a};
      cut_.store(x.cut, std::memory_order_relaxed);  // the mutex orders the writers
    }
  }

  [[nodiscard]] solution get() {
    const std::lock_guard<std::mutex> hold(mutex_);
    return best_;
  }

 private:
  std::mutex mutex_;
  solution best_;
  std::atomic<weight> cut_;
};

// ---- implementation of expand ----

// The child of x with the next vertex on side A (or B), completed if a side is full, with its bound.
[[nodiscard]] node child_of(const problem& p, const node& x, bool on_a) noexcept;

template <class Leaf, class Spawn>
void expand(const problem& p, const node& x, weight best, const Leaf& leaf, const Spawn& spawn) {
  const int half = p.vertices / 2;
  for (const bool on_a : {true, false}) {
    const std::uint64_t side = on_a ? x.side_a : x.side_b;
    if (std::popcount(side) == half) {
      continue;
    }
    const node child = child_of(p, x, on_a);
    if (complete(p, child)) {
      if (child.cut < best) {
        leaf(child);
        best = child.cut;  // the other child must beat this one
      }
    } else if (child.bound < best) {
      spawn(child);
    }
  }
}

}  // namespace fjb::bipartition
