// fj-scratch: the value of fj::scratch (paper III-C). A balanced tree where every node keeps its children's
// results in a per-task array (as UTS does with stack-allocated child results): the array on the worker's
// segmented stack (fj::scratch) against the heap (std::vector). Interleaved repetitions, medians.
//
//   fj-scratch [--depth D] [--fanout K] [--reps R] [--workers W]

#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

namespace {

fj::task<long> tree_scratch(int depth, int fanout) {
  if (depth == 0) co_return 1;
  fj::scratch<long> results(static_cast<std::size_t>(fanout));
  for (std::size_t i = 0; i < results.size(); ++i)
    co_await fj::fork(&results[i], tree_scratch, depth - 1, fanout);
  co_await fj::join;
  co_return 1 + std::accumulate(results.begin(), results.end(), 0L);
}

fj::task<long> tree_heap(int depth, int fanout) {
  if (depth == 0) co_return 1;
  std::vector<long> results(static_cast<std::size_t>(fanout));
  for (std::size_t i = 0; i < results.size(); ++i)
    co_await fj::fork(&results[i], tree_heap, depth - 1, fanout);
  co_await fj::join;
  co_return 1 + std::accumulate(results.begin(), results.end(), 0L);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int depth = 8;
  int fanout = 6;
  int reps = 7;
  std::size_t workers = 1;
  for (int i = 1; i < argc; ++i) {
    std::string const arg = argv[i];
    if (arg == "--depth" && i + 1 < argc) {
      depth = std::atoi(argv[++i]);
    } else if (arg == "--fanout" && i + 1 < argc) {
      fanout = std::atoi(argv[++i]);
    } else if (arg == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--workers" && i + 1 < argc) {
      workers = static_cast<std::size_t>(std::max(1, std::atoi(argv[++i])));
    } else {
      std::fprintf(stderr, "usage: fj-scratch [--depth D] [--fanout K] [--reps R] [--workers W]\n");
      return arg == "--help" ? 0 : 1;
    }
  }
  long nodes = 0;
  for (long level = 1, i = 0; i <= depth; ++i, level *= fanout) nodes += level;
  fj::lazy_pool pool(workers);
  std::vector<double> scratch_times;
  std::vector<double> heap_times;
  for (int r = 0; r <= reps; ++r) {
    for (bool use_scratch : {true, false}) {
      auto const t0 = std::chrono::steady_clock::now();
      long const got = use_scratch ? fj::sync_wait(pool, tree_scratch, depth, fanout)
                                   : fj::sync_wait(pool, tree_heap, depth, fanout);
      double const s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (got != nodes) {
        std::fprintf(stderr, "fj-scratch: WRONG ANSWER %ld, expected %ld\n", got, nodes);
        return 2;
      }
      if (r > 0) (use_scratch ? scratch_times : heap_times).push_back(s);  // round 0 warms up
    }
  }
  double const ts = median(scratch_times);
  double const th = median(heap_times);
  std::printf("tree depth %d fanout %d (%ld nodes), lazy_pool(%zu), %d interleaved reps, medians\n", depth,
              fanout, nodes, workers, reps);
  std::printf("fj::scratch  %.4f s  %.1f ns/node\n", ts, ts * 1e9 / static_cast<double>(nodes));
  std::printf("std::vector  %.4f s  %.1f ns/node\n", th, th * 1e9 / static_cast<double>(nodes));
  std::printf("heap / scratch = %.2f\n", th / ts);
  return 0;
}
