#include "sssp.hpp"
#include "stopwatch.hpp"

namespace fjb::sssp {
namespace {

// Dijkstra is its own reference: checked by the proof in verify alone.
run_result run(graph_kind kind, const run_request& request) {
  const graph g = graph_for(kind, request);
  dijkstra_result answer;
  const double seconds = seconds_taken([&] { answer = dijkstra(g); });
  verify(g, answer.distances, answer.relaxations, nullptr);
  return {seconds};
}

const graph_registrars<run> serial{"serial"};

}  // namespace
}  // namespace fjb::sssp
