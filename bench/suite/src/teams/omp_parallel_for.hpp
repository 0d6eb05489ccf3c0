#pragma once

#include <cstddef>

namespace fjb {

// body(i) for every i in [first, last) as OpenMP tasks of `grain` iterations each: how an OpenMP user
// writes a parallel loop inside a task region. Call it from inside omp_team::time.
template <class Body>
void omp_for_each_index(std::size_t first, std::size_t last, std::size_t grain, const Body& body) {
  const auto begin = static_cast<long long>(first);
  const auto end = static_cast<long long>(last);
  const auto chunk = static_cast<long long>(grain);
  // clang's lowering of taskloop converts between signed and unsigned internally and warns about its own
  // code.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wsign-conversion"
#pragma clang diagnostic ignored "-Wsign-compare"
#pragma clang diagnostic ignored "-Wshorten-64-to-32"
#endif
#pragma omp taskloop grainsize(chunk)
  for (long long i = begin; i < end; ++i) {
    body(static_cast<std::size_t>(i));
  }
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
}

}  // namespace fjb
