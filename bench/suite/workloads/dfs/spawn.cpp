#include "dfs.hpp"
#include "teams/fj_team.hpp"

namespace fjb::dfs {
namespace {

// Child stealing with a plain function: forkjoin.cpp's algorithm, written with fj::scope.
std::uint64_t search(int branching, int depth, std::uint64_t number) {
  if (depth == 0) {
    return number;
  }
  child_sums parts{};
  fj::scope s;
  for (int child = 0; child < branching; ++child) {
    s.spawn(&parts[static_cast<std::size_t>(child)], search, branching, depth - 1,
            child_number(number, branching, child));
  }
  s.sync();
  return sum_of_children(parts, branching);
}

run_result run(const run_request& request) {
  const problem p = problem_at(request);
  fj_team<fj::lazy_pool> team(request.workers);
  std::uint64_t answer = 0;
  const double seconds = team.time([&](fj::lazy_pool& pool) {
    answer = fj::sync_wait(pool, search, p.branching, p.depth, std::uint64_t{0});
  });
  verify(p, answer);
  return {seconds};
}

const implementation_registrar spawn{"dfs", "fj-spawn", run};

}  // namespace
}  // namespace fjb::dfs
