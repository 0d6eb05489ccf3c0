#include "blkmul.hpp"
#include "teams/fj_parallel_for.hpp"
#include "teams/fj_team.hpp"

namespace fjb::blkmul {
namespace {

template <class Pool>
run_result run(const run_request& request) {
  operands m = make_operands(order(request));
  const auto compute = [&m](std::size_t index) { compute_tile(m, index); };
  fj_team<Pool> team(request.workers);
  const double seconds = team.time([&](Pool& pool) {
    fj::sync_wait(pool, fj_for_each_index<decltype(compute)>, 0, tile_count(m), 1, &compute);
  });
  verify(m);
  return {seconds};
}

const implementation_registrar busy{"blkmul", "fj-busy", run<fj::busy_pool>};
const implementation_registrar lazy{"blkmul", "fj-lazy", run<fj::lazy_pool>};
const implementation_registrar unit{"blkmul", "fj-unit", run<fj::unit_pool>};

}  // namespace
}  // namespace fjb::blkmul
