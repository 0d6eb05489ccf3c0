// ctest bench_search_workloads: the sssp and bipartition workloads' parts on small inputs (well under 2 s).
//   fj-bench-search-test               run the checks
//   fj-bench-search-test --optimum N   print the optimum cut of the bipartition workload's graph with N
//   vertices
//   fj-bench-search-test --orders N    the same graph searched serially in four orders: best first or depth
//   first, each task spawning both children or diving into the child of lower bound; prints the nodes
//   expanded, the tasks, the most open nodes at once and how many nodes came before the optimum was found
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <queue>
#include <string_view>
#include <utility>
#include <vector>

#include "../workloads/bipartition/bipartition.hpp"
#include "../workloads/sssp/delta_stepping.hpp"
#include "../workloads/sssp/label_correcting.hpp"
#include "../workloads/sssp/sssp.hpp"
#include "work_counts.hpp"

namespace {

using namespace fjb;

int failures = 0;

void check(bool holds, const char* what) {
  if (!holds) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
}

bool same_graph(const sssp::graph& a, const sssp::graph& b) {
  if (a.first != b.first || a.source != b.source || a.edges.size() != b.edges.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.edges.size(); ++i) {
    if (a.edges[i].target != b.edges[i].target || a.edges[i].weight != b.edges[i].weight) {
      return false;
    }
  }
  return true;
}

void generators_are_deterministic() {
  check(same_graph(sssp::make_grid(20, 7), sssp::make_grid(20, 7)), "grid: same seed, same graph");
  check(!same_graph(sssp::make_grid(20, 7), sssp::make_grid(20, 8)), "grid: another seed, another graph");
  check(same_graph(sssp::make_rmat(10, 7), sssp::make_rmat(10, 7)), "R-MAT: same seed, same graph");
  check(!same_graph(sssp::make_rmat(10, 7), sssp::make_rmat(10, 8)), "R-MAT: another seed, another graph");
  const sssp::graph grid = sssp::make_grid(20, 7);
  check(grid.vertex_count() == 400 && grid.edges.size() == std::size_t{1520},  // 4 x 20 x 19
        "grid: vertex and edge counts");
  const sssp::graph rmat = sssp::make_rmat(10, 7);
  check(rmat.vertex_count() == 1024 && rmat.edges.size() <= std::size_t{1024} * sssp::rmat_edge_factor &&
            rmat.edges.size() > std::size_t{1024} * sssp::rmat_edge_factor * 9 / 10,
        "R-MAT: vertex count, and edges less the self-loops dropped");
  check(bipartition::make_problem(12, 3).weights == bipartition::make_problem(12, 3).weights,
        "bipartition: same seed, same graph");
}

// Every parallel SSSP against Dijkstra (verify throws fjb::wrong_answer on a difference).
void sssp_agrees_with_dijkstra(fj::lazy_pool& pool) {
  for (const sssp::graph& g : {sssp::make_grid(30, 11), sssp::make_rmat(11, 11)}) {
    const sssp::dijkstra_result reference = sssp::dijkstra(g);
    std::vector<sssp::distance> found;
    const std::uint64_t label_correcting = sssp::label_correcting(pool, g, 2, found);
    sssp::verify(g, found, label_correcting, &reference.distances);
    const std::uint64_t delta =
        sssp::delta_stepping(g, 100, 2, found, [](std::size_t count, const auto& body) {
          for (std::size_t i = 0; i < count; ++i) {
            body(i);
          }
        });
    sssp::verify(g, found, delta, &reference.distances);
    check(label_correcting >= reference.relaxations && delta >= reference.relaxations,
          "SSSP: no search relaxes fewer edges than Dijkstra");
    std::printf(
        "SSSP %u vertices: relaxations Dijkstra %llu, label-correcting on the deque %llu, delta-stepping "
        "%llu\n",
        g.vertex_count(), static_cast<unsigned long long>(reference.relaxations),
        static_cast<unsigned long long>(label_correcting), static_cast<unsigned long long>(delta));
  }
}

// The depth-first search of spawn.cpp, through the same seam.
struct dfs {
  const bipartition::problem* p;
  bipartition::shared_best* best;
};

void dfs_task(const dfs* s, bipartition::node x) {
  if (x.bound >= s->best->cut()) {
    return;
  }
  fj::scope scope;
  bipartition::expand(
      *s->p, x, s->best->cut(), [&](const bipartition::node& leaf) { s->best->offer(leaf); },
      [&](const bipartition::node& child) { scope.spawn(dfs_task, s, child); });
  scope.sync();
}

void branch_and_bound_agrees_with_brute_force(fj::lazy_pool& pool) {
  for (const int vertices : {10, 12}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const bipartition::problem p = bipartition::make_problem(vertices, seed);
      const bipartition::solution exact = bipartition::brute_force(p);
      const bipartition::search_result best_first = bipartition::best_first(p);
      check(best_first.best.cut == exact.cut, "bipartition: best-first finds the optimum");
      check(bipartition::cut_of(p, best_first.best.side_a) == exact.cut,
            "bipartition: best-first's partition");
      check(bipartition::root_of(p).bound <= exact.cut, "bipartition: the root's bound is a lower bound");
      check(bipartition::heuristic(p).cut >= exact.cut,
            "bipartition: the heuristic cuts no less than optimal");
      bipartition::shared_best best(bipartition::heuristic(p));
      const dfs s{&p, &best};
      fj::sync_wait(pool, dfs_task, &s, bipartition::root_of(p));
      check(best.get().cut == exact.cut, "bipartition: the parallel depth-first search finds the optimum");
    }
  }
}

// One serial search over the open nodes in a heap (smallest bound first, as serial best_first) or a stack
// (newest first, as the deque), with each expansion pushing both children, or diving into the child of lower
// bound and pushing the other (bench/suite/workloads/bipartition/priority.cpp's task).
struct order_counts {
  std::uint64_t expanded = 0;
  std::uint64_t tasks = 0;
  std::uint64_t before_optimum = 0;
  std::size_t most_open = 0;
  bipartition::weight cut = 0;
};

template <bool BestFirst, bool Dive>
order_counts search_in_order(const bipartition::problem& p, bipartition::weight optimum) {
  using bipartition::node;
  order_counts r;
  bipartition::weight best = bipartition::heuristic(p).cut;
  const auto later = [](const node& x, const node& y) {
    return x.bound != y.bound ? x.bound > y.bound : x.assigned < y.assigned;
  };
  std::priority_queue<node, std::vector<node>, decltype(later)> heap(later);
  std::vector<node> stack;
  const auto push = [&](const node& x) {
    ++r.tasks;
    if constexpr (BestFirst) {
      heap.push(x);
    } else {
      stack.push_back(x);
    }
  };
  push(bipartition::root_of(p));
  while (BestFirst ? !heap.empty() : !stack.empty()) {
    node x{};
    if constexpr (BestFirst) {
      x = heap.top();
      heap.pop();
      r.most_open = std::max(r.most_open, heap.size() + 1);
    } else {
      x = stack.back();
      stack.pop_back();
      r.most_open = std::max(r.most_open, stack.size() + 1);
    }
    while (x.bound < best) {
      ++r.expanded;
      r.before_optimum += best > optimum ? 1 : 0;
      std::vector<node> children;
      bipartition::expand(
          p, x, best, [&](const node& leaf) { best = std::min(best, leaf.cut); },
          [&](const node& child) { children.push_back(child); });
      if (!Dive || children.empty()) {
        std::for_each(children.begin(), children.end(), push);
        break;
      }
      if (children.size() == 2 && children[1].bound < children[0].bound) {
        std::swap(children[0], children[1]);
      }
      if (children.size() == 2) {
        push(children[1]);
      }
      x = children[0];
    }
  }
  r.cut = best;
  return r;
}

void print_orders(int n) {
  const bipartition::problem p = bipartition::problem_for({scale::quick, 1, n});
  const bipartition::search_result reference = bipartition::best_first(p);
  std::printf("%d vertices: optimum cut %u, heuristic's cut %u, serial best-first expanded %llu\n", n,
              reference.best.cut, bipartition::heuristic(p).cut,
              static_cast<unsigned long long>(reference.expanded));
  const auto show = [&](const char* name, const order_counts& c) {
    std::printf(
        "  %-22s expanded %8llu (%.3f)  tasks %8llu  most open %7zu  expanded before the optimum %8llu\n",
        name, static_cast<unsigned long long>(c.expanded),
        static_cast<double>(c.expanded) / static_cast<double>(reference.expanded),
        static_cast<unsigned long long>(c.tasks), c.most_open,
        static_cast<unsigned long long>(c.before_optimum));
    check(c.cut == reference.best.cut, "bipartition: every order finds the optimum");
  };
  show("best first, children", search_in_order<true, false>(p, reference.best.cut));
  show("depth first, children", search_in_order<false, false>(p, reference.best.cut));
  show("best first, dives", search_in_order<true, true>(p, reference.best.cut));
  show("depth first, dives", search_in_order<false, true>(p, reference.best.cut));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) == "--orders") {
    int n = 0;
    std::from_chars(argv[2], argv[2] + std::string_view(argv[2]).size(), n);
    print_orders(n);
    return failures == 0 ? 0 : 1;
  }
  if (argc == 3 && std::string_view(argv[1]) == "--optimum") {
    int n = 0;
    std::from_chars(argv[2], argv[2] + std::string_view(argv[2]).size(), n);
    const bipartition::problem p = bipartition::problem_for({scale::quick, 1, n});
    const bipartition::search_result r = bipartition::best_first(p);
    std::printf("%d vertices: optimum cut %u, %llu nodes expanded\n", n, r.best.cut,
                static_cast<unsigned long long>(r.expanded));
    return 0;
  }
  try {
    fj::lazy_pool pool(2);
    generators_are_deterministic();
    sssp_agrees_with_dijkstra(pool);
    branch_and_bound_agrees_with_brute_force(pool);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "FAILED: %s\n", error.what());
    return 1;
  }
  if (failures != 0) {
    return 1;
  }
  std::puts("search workloads: all checks passed");
  return 0;
}
