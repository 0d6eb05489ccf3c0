#pragma once
// What the algorithm test programs (tests/unit/algorithm_*_test.cpp) share: the pools they run on, the input
// sizes and partitions, seeded random inputs, an element error, and an associative operation that does not
// commute.
//
// The tests were one program whose compilation took about 4 minutes (clang-19 -O3); they are split by
// algorithm family so that the programs compile in parallel. Every test body used to be instantiated once per
// pool type (lazy_pool and busy_pool) and the algorithms with it, although the algorithms reach a pool only
// through core() (the fj::scheduler concept): on_every_pool now hands each pool over as its common base,
// fj::detail::pool_base, so that each body and the algorithms it calls are compiled once. The concrete pool
// types are still passed directly in algorithm_misuse_test.cpp.

#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "support/test_config.hpp"

namespace fj::test::algo {

// The pools every test runs on, made once per program: 1 worker (lazy), 2 (busy), 4 (lazy) and 16 (lazy,
// oversubscribed).
struct pools {
  fj::lazy_pool one{1};
  fj::busy_pool two{2};
  fj::lazy_pool four{4};
  fj::lazy_pool sixteen{16};
};

inline pools& all_pools() {
  static pools p;
  return p;
}

// fn(pool) for each pool, as the pools' common base (see the top of this file).
template <class Fn>
void on_every_pool(Fn fn) {
  pools& p = all_pools();
  fn(static_cast<fj::detail::pool_base&>(p.one));
  fn(static_cast<fj::detail::pool_base&>(p.two));
  fn(static_cast<fj::detail::pool_base&>(p.four));
  fn(static_cast<fj::detail::pool_base&>(p.sixteen));
}

// The large size shrinks under sanitizers, but stays above the serial cutoffs so that the parallel paths run.
inline std::size_t large() { return static_cast<std::size_t>(fj::test::scaled(100'003, 20'011)); }

inline std::vector<std::size_t> sizes() { return {0, 1, 2, 17, 1009, 4099, large()}; }

// Automatic, lazy splitting with a small grain (many splits), and a fixed tree.
inline std::vector<fj::partition> partitions() {
  return {fj::partition{}, fj::grain(16), fj::fixed_grain(100)};
}

inline std::mt19937_64& rng() {
  static std::mt19937_64 r(fj::test::seed());
  return r;
}

inline std::vector<std::int64_t> random_values(std::size_t n, std::int64_t range = 1000) {
  std::uniform_int_distribution<std::int64_t> d(-range, range);
  std::vector<std::int64_t> v(n);
  for (auto& x : v) x = d(rng());
  return v;
}

inline std::size_t random_index(std::size_t n) {
  return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng());
}

struct element_error : std::runtime_error {
  explicit element_error(std::size_t i) : std::runtime_error("element"), index(i) {}
  std::size_t index;
};

// An associative, non-commutative operation: composition of affine maps x -> a*x + b (mod 2^64). A result
// equals the serial left fold only if the order of the elements is kept.
struct affine {
  std::uint64_t a = 1;
  std::uint64_t b = 0;
  friend bool operator==(const affine&, const affine&) = default;
};
struct compose {
  affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};
inline std::vector<affine> random_affine(std::size_t n) {
  std::vector<affine> v(n);
  for (auto& f : v) f = {rng()() | 1, rng()()};
  return v;
}

}  // namespace fj::test::algo
