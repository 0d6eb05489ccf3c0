#include "blkmul.hpp"
#include "teams/fj_spawn_for.hpp"
#include "teams/fj_team.hpp"

namespace fjb::blkmul {
namespace {

// One tile per iteration of a loop split in halves with fj::scope, as forkjoin.cpp splits it with tasks.
run_result run(const run_request& request) {
  operands m = make_operands(order(request));
  const auto compute = [&m](std::size_t index) { compute_tile(m, index); };
  fj_team<fj::lazy_pool> team(request.workers);
  const double seconds = team.time([&](fj::lazy_pool& pool) {
    fj::sync_wait(pool, [&] { fj_spawn_for_each_index(0, tile_count(m), 1, compute); });
  });
  verify(m);
  return {seconds};
}

const implementation_registrar spawn{"blkmul", "fj-spawn", run};

}  // namespace
}  // namespace fjb::blkmul
