// victim_sampler's alias table (include/forkjoin/detail/victim_choice.hpp): built once per worker when a pool
// starts, so out of line; and the error for a user's victim part that returned an index past the workers.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/victim_choice.hpp"
#include "forkjoin/topology.hpp"

namespace fj::detail {

std::uint64_t victim_sampler::to_threshold(double p) noexcept {
  const double t = p * 4294967296.0;
  if (t <= 0.0) {
    return 0;
  }
  return t >= 4294967296.0 ? k_always : static_cast<std::uint64_t>(t);
}

victim_sampler::victim_sampler(const topology& topo, std::size_t self, std::uint64_t seed)
    : self_(self), rng_(seed) {
  const std::vector<double> w = topo.victim_weights(self);
  const std::size_t m = w.size() - 1;  // candidates: everyone but self
  if (m == 0) {
    return;
  }
  // Vose: scale to mean 1, then pair each under-full column with an over-full donor.
  std::vector<double> scaled(m);
  for (std::size_t c = 0; c < m; ++c) {
    scaled[c] = w[core_of(c)] * static_cast<double>(m);
  }
  std::vector<std::size_t> small;
  std::vector<std::size_t> large;
  for (std::size_t c = 0; c < m; ++c) {
    (scaled[c] < 1.0 ? small : large).push_back(c);
  }
  columns_.assign(m, column{k_always, 0});
  while (!small.empty() && !large.empty()) {
    const std::size_t s = small.back();
    small.pop_back();
    const std::size_t l = large.back();
    columns_[s] = column{to_threshold(scaled[s]), static_cast<std::uint32_t>(l)};
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // Whatever is left is 1 up to rounding: those columns always keep their own core (k_always, set above).
}

void victim_choice::bad_victim(std::size_t victim) const noexcept {
  char text[512];
  (void)std::snprintf(
      text, sizeof text,
      "the victim part %s returned worker %zu to worker %zu of a pool of %zu workers; a victim "
      "part must return an index below the worker count (its own index skips the attempt, "
      "include/forkjoin/ext/victim_part.hpp)",
      custom_name_, victim, self_, workers_);
  fatal(text);
}

}  // namespace fj::detail
