#pragma once

#include <forkjoin/forkjoin.hpp>

#include <cstddef>

namespace fjb {

// body(i) for every i in [first, last), split in halves down to `grain` indices: how a forkjoin user
// writes a parallel loop. The body must outlive the loop.
template <class Body>
fj::task<void> fj_for_each_index(std::size_t first, std::size_t last, std::size_t grain, const Body* body) {
  if (last - first <= grain) {
    for (std::size_t i = first; i < last; ++i) {
      (*body)(i);
    }
    co_return;
  }
  const std::size_t middle = first + (last - first) / 2;
  co_await fj::fork(fj_for_each_index<Body>, first, middle, grain, body);
  co_await fj::call(fj_for_each_index<Body>, middle, last, grain, body);
  co_await fj::join;
}

}  // namespace fjb
