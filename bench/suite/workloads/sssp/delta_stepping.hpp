#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "sssp.hpp"

// Δ-stepping (Meyer and Sanders), the baseline without task priorities: the vertices whose distance lies in
// the current bucket [k Δ, (k + 1) Δ) are relaxed in parallel, then the next non-empty bucket is taken (the
// current one again if light edges refilled it). A round splits its bucket into chunks; each chunk files
// the vertices it improves into bins of its own, so no two threads ever append to the same list.
namespace fjb::sssp {

// for_each_chunk(count, body) runs body(i) for every i in [0, count), in parallel. Returns the relaxations.
template <class ForEachChunk>
std::uint64_t delta_stepping(const graph& g, distance delta, unsigned workers, std::vector<distance>& out,
                             const ForEachChunk& for_each_chunk) {
  shared_distances distances = unreached_distances(g);
  struct chunk_state {
    std::vector<std::vector<vertex>> bins;  // bins[k]: vertices improved into bucket k
    std::uint64_t relaxations = 0;
  };
  // Enough chunks to balance a round among the workers, but none smaller than this.
  constexpr std::size_t smallest_chunk = 64;
  const std::size_t most_chunks = std::size_t{4} * workers;
  std::vector<chunk_state> chunks(most_chunks);
  std::vector<vertex> bucket{g.source};
  distances[g.source].store(0, std::memory_order_relaxed);  // before the rounds: nothing to order
  std::size_t current = 0;
  for (;;) {
    const std::size_t count = std::clamp<std::size_t>(bucket.size() / smallest_chunk, 1, most_chunks);
    // Every round's loop joins before the next round, which orders each round's relaxed stores (lower_to)
    // before the next round's loads.
    for_each_chunk(count, [&](std::size_t c) {
      chunk_state& mine = chunks[c];
      const std::size_t begin = bucket.size() * c / count;
      const std::size_t end = bucket.size() * (c + 1) / count;
      for (std::size_t i = begin; i < end; ++i) {
        const vertex v = bucket[i];
        const distance known = distances[v].load(std::memory_order_relaxed);
        if (known / delta != current) {
          continue;  // improved into an earlier bucket since it was filed here, and relaxed there
        }
        mine.relaxations += relax_vertex(g, distances, v, known, [&](vertex u, distance d) {
          const std::size_t k = d / delta;
          if (k >= mine.bins.size()) {
            mine.bins.resize(k + 1);
          }
          mine.bins[k].push_back(u);
        });
      }
    });
    std::size_t next = static_cast<std::size_t>(-1);
    for (const chunk_state& chunk : chunks) {
      for (std::size_t k = current; k < chunk.bins.size(); ++k) {
        if (!chunk.bins[k].empty()) {
          next = std::min(next, k);
          break;
        }
      }
    }
    if (next == static_cast<std::size_t>(-1)) {
      break;
    }
    bucket.clear();
    for (chunk_state& chunk : chunks) {
      if (next < chunk.bins.size()) {
        bucket.insert(bucket.end(), chunk.bins[next].begin(), chunk.bins[next].end());
        chunk.bins[next].clear();
      }
    }
    current = next;
  }
  out = plain_distances(distances);
  std::uint64_t relaxations = 0;
  for (const chunk_state& chunk : chunks) {
    relaxations += chunk.relaxations;
  }
  return relaxations;
}

}  // namespace fjb::sssp
