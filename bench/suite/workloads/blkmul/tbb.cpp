#include <tbb/parallel_for.h>

#include "blkmul.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::blkmul {
namespace {

run_result run(const run_request& request) {
  operands m = make_operands(order(request));
  tbb_team team(request.workers);
  const double seconds = team.time([&] {
    tbb::parallel_for(std::size_t{0}, tile_count(m), [&m](std::size_t index) { compute_tile(m, index); });
  });
  verify(m);
  return {seconds};
}

const implementation_registrar registrar{"blkmul", "tbb", run};

}  // namespace
}  // namespace fjb::blkmul
