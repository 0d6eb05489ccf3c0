#include "blkmul.hpp"
#include "teams/omp_parallel_for.hpp"
#include "teams/omp_team.hpp"

namespace fjb::blkmul {
namespace {

run_result run(const run_request& request) {
  operands m = make_operands(order(request));
  omp_team team(request.workers);
  const double seconds = team.time(
      [&] { omp_for_each_index(0, tile_count(m), 1, [&m](std::size_t index) { compute_tile(m, index); }); });
  verify(m);
  return {seconds};
}

const implementation_registrar registrar{"blkmul", "omp", run};

}  // namespace
}  // namespace fjb::blkmul
