// Shortest paths on a small grid with priority tasks (fj::priority_group): a task relaxes one vertex's
// edges and spawns a task for every neighbour it improved, at priority = the neighbour's new distance, so
// the workers go roughly in Dijkstra's order and redo little work. Checked against Dijkstra's algorithm.

#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <queue>
#include <random>
#include <utility>
#include <vector>

namespace {

constexpr int side = 200;
constexpr int vertices = side * side;

struct graph {
  std::vector<std::uint32_t> weight_right;  // edge (x, y) - (x + 1, y)
  std::vector<std::uint32_t> weight_down;   // edge (x, y) - (x, y + 1)
};

// Calls f(neighbour, weight) for each neighbour of v.
template <class F>
void for_each_edge(const graph& g, int v, F f) {
  int const x = v % side;
  int const y = v / side;
  if (x + 1 < side) f(v + 1, g.weight_right[static_cast<std::size_t>(v)]);
  if (x > 0) f(v - 1, g.weight_right[static_cast<std::size_t>(v - 1)]);
  if (y + 1 < side) f(v + side, g.weight_down[static_cast<std::size_t>(v)]);
  if (y > 0) f(v - side, g.weight_down[static_cast<std::size_t>(v - side)]);
}

struct search {
  const graph* g;
  std::vector<std::atomic<std::uint64_t>>* dist;
  fj::relaxed_priority_group<16>* group;
};

void relax(const search* s, int v, std::uint64_t known) {
  if ((*s->dist)[static_cast<std::size_t>(v)].load(std::memory_order_relaxed) < known)
    return;  // improved since
  for_each_edge(*s->g, v, [&](int u, std::uint32_t w) {
    std::uint64_t const candidate = known + w;
    auto& slot = (*s->dist)[static_cast<std::size_t>(u)];
    std::uint64_t current = slot.load(std::memory_order_relaxed);
    while (candidate < current) {
      if (slot.compare_exchange_weak(current, candidate, std::memory_order_relaxed)) {
        s->group->spawn(static_cast<double>(candidate), relax, s, u, candidate);  // lower = sooner
        break;
      }
    }
  });
}

std::vector<std::uint64_t> dijkstra(const graph& g) {
  std::vector<std::uint64_t> dist(vertices, UINT64_MAX);
  using entry = std::pair<std::uint64_t, int>;
  std::priority_queue<entry, std::vector<entry>, std::greater<>> heap;
  dist[0] = 0;
  heap.emplace(0, 0);
  while (!heap.empty()) {
    std::uint64_t const d = heap.top().first;
    int const v = heap.top().second;
    heap.pop();
    if (d > dist[static_cast<std::size_t>(v)]) continue;
    for_each_edge(g, v, [&](int u, std::uint32_t w) {
      if (d + w < dist[static_cast<std::size_t>(u)]) {
        dist[static_cast<std::size_t>(u)] = d + w;
        heap.emplace(d + w, u);
      }
    });
  }
  return dist;
}

}  // namespace

int main() {
  graph g{std::vector<std::uint32_t>(vertices), std::vector<std::uint32_t>(vertices)};
  std::mt19937 rng(42);
  std::uniform_int_distribution<std::uint32_t> weight(1, 100);
  for (auto& w : g.weight_right) w = weight(rng);
  for (auto& w : g.weight_down) w = weight(rng);

  std::vector<std::atomic<std::uint64_t>> dist(vertices);
  for (auto& d : dist) d.store(UINT64_MAX, std::memory_order_relaxed);
  dist[0].store(0, std::memory_order_relaxed);

  fj::lazy_pool pool;
  fj::relaxed_priority_group<16> group(pool);  // k = 16: a pop may miss the 16 newest tasks of other workers
  search const s{&g, &dist, &group};
  group.spawn(0.0, relax, &s, 0, std::uint64_t{0});
  group.wait();  // every task, and every task they spawned, has run

  std::vector<std::uint64_t> const expected = dijkstra(g);
  for (int v = 0; v < vertices; ++v) {
    if (dist[static_cast<std::size_t>(v)].load() != expected[static_cast<std::size_t>(v)]) {
      std::printf("wrong distance at vertex %d\n", v);
      return 1;
    }
  }
  std::printf("shortest paths on a %d x %d grid: farthest corner at %llu\n", side, side,
              static_cast<unsigned long long>(expected[vertices - 1]));
  return 0;
}
