#include <tbb/task_group.h>

#include <array>

#include "dfs.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::dfs {
namespace {

std::uint64_t search(int branching, int depth, std::uint64_t number) {
  if (depth == 0) {
    return number;
  }
  std::array<std::uint64_t, largest_branching> parts{};
  tbb::task_group group;
  for (int child = 0; child < branching; ++child) {
    group.run([&parts, child, branching, depth, number] {
      parts[static_cast<std::size_t>(child)] =
          search(branching, depth - 1, child_number(number, branching, child));
    });
  }
  group.wait();
  std::uint64_t total = 0;
  for (int child = 0; child < branching; ++child) {
    total += parts[static_cast<std::size_t>(child)];
  }
  return total;
}

run_result run(const run_request& request) {
  const problem p = problem_at(request.size);
  tbb_team team(request.workers);
  std::uint64_t answer = 0;
  const double seconds = team.time([&] { answer = search(p.branching, p.depth, 0); });
  verify(p, answer);
  return {seconds};
}

const implementation_registrar registrar{"dfs", "tbb", run};

}  // namespace
}  // namespace fjb::dfs
