#pragma once

#include <forkjoin/forkjoin.hpp>

#include <cstddef>

namespace fjb {

// body(i) for every i in [first, last), split in halves down to `grain` indices, with plain functions and
// fj::scope (child stealing): the same splitting as fj_for_each_index (fj_parallel_for.hpp). The first half
// is spawned, so a thief takes the larger remaining range, and the second half runs here.
template <class Body>
void fj_spawn_for_each_index(std::size_t first, std::size_t last, std::size_t grain, const Body& body) {
  if (last - first <= grain) {
    for (std::size_t i = first; i < last; ++i) {
      body(i);
    }
    return;
  }
  const std::size_t middle = first + (last - first) / 2;
  fj::scope s;
  s.spawn([&] { fj_spawn_for_each_index(first, middle, grain, body); });
  fj_spawn_for_each_index(middle, last, grain, body);
  s.sync();
}

}  // namespace fjb
