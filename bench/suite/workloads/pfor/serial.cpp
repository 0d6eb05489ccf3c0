#include "pfor.hpp"
#include "stopwatch.hpp"

namespace fjb::pfor {
namespace {

run_result run(const run_request& request) {
  const problem p = problem_at(request);
  const std::vector<int> input = shared_input(p.elements);
  std::vector<std::uint64_t> fingerprints(p.iterations, 0);
  const double seconds = seconds_taken([&] {
    for (std::size_t i = 0; i < p.iterations; ++i) {
      fingerprints[i] = sort_copy(input);
    }
  });
  verify(input, fingerprints);
  return {seconds};
}

const implementation_registrar registrar{"pfor", "serial", run};

}  // namespace
}  // namespace fjb::pfor
