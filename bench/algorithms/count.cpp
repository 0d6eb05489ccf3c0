// fj-algorithms-count: calls one implementation of one algorithm (serial std:: or forkjoin, the same kernels
// as fj-algorithms) a given number of times on a given size, for instruction counts under callgrind. The
// difference between two call counts cancels start-up and pool creation (bench/algorithms/README.md).
//
//   fj-algorithms-count inclusive_scan forkjoin 220 1000
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kernels.hpp"

namespace {
volatile fja::value sink;  // keeps the results alive
}  // namespace

int main(int argc, char** argv) {
  using fja::key;
  using fja::value;
  if (argc != 5) {
    std::fprintf(stderr, "usage: fj-algorithms-count ALGORITHM serial|forkjoin CALLS N\n");
    return 2;
  }
  std::string const algorithm = argv[1];
  bool const forkjoin = std::string(argv[2]) == "forkjoin";
  long const calls = std::atol(argv[3]);
  std::size_t const n = std::max<std::size_t>(1, std::strtoull(argv[4], nullptr, 10));
  fja::kernels const k = forkjoin ? fja::forkjoin_kernels() : fja::serial_kernels();
  constexpr int workers = 2;
  std::mt19937_64 rng(1);
  std::vector<value> in(n);
  for (auto& x : in) x = rng() % 2001;
  std::vector<value> out(n);
  std::vector<value> work = in;
  std::vector<key> keys(n);
  for (auto& x : keys) x = static_cast<key>(rng());
  std::vector<key> key_work(n);
  constexpr value target = 1'000'000;
  in[n * 3 / 4] = target;
  sink = k.reduce(in, workers);  // makes forkjoin's pool before the calls that are counted
  for (long c = 0; c < calls; ++c) {
    if (algorithm == "for_each") {
      k.for_each(work, workers);
    } else if (algorithm == "transform") {
      k.transform(in, out, workers);
    } else if (algorithm == "reduce") {
      sink = k.reduce(in, workers);
    } else if (algorithm == "transform_reduce") {
      sink = k.transform_reduce(in, workers);
    } else if (algorithm == "inclusive_scan") {
      k.inclusive_scan(in, out, workers);
    } else if (algorithm == "exclusive_scan") {
      k.exclusive_scan(in, out, workers);
    } else if (algorithm == "count_if") {
      sink = static_cast<value>(k.count_if(in, workers));
    } else if (algorithm == "find") {
      sink = k.find(in, target, workers);
    } else if (algorithm == "sort" || algorithm == "stable_sort") {
      std::copy(keys.begin(), keys.end(), key_work.begin());  // the same copy in both implementations
      (algorithm == "sort" ? k.sort : k.stable_sort)(key_work, workers);
    } else {
      std::fprintf(stderr, "fj-algorithms-count: unknown algorithm %s\n", algorithm.c_str());
      return 2;
    }
  }
  sink = out[n / 2] + work[n / 3] + static_cast<value>(key_work[n / 2]);
  return 0;
}
