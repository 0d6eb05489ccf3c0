#include <tbb/task_group.h>

#include "dfs.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::dfs {
namespace {

std::uint64_t search(int branching, int depth, std::uint64_t number) {
  if (depth == 0) {
    return number;
  }
  child_sums parts{};
  tbb::task_group group;
  for (int child = 0; child < branching; ++child) {
    group.run([&parts, child, branching, depth, number] {
      parts[static_cast<std::size_t>(child)] =
          search(branching, depth - 1, child_number(number, branching, child));
    });
  }
  group.wait();
  return sum_of_children(parts, branching);
}

const implementation_registrar registrar{"dfs", "tbb", run_on_team<tbb_team, search>};

}  // namespace
}  // namespace fjb::dfs
