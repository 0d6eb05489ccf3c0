#include <vector>

#include "teams/omp_team.hpp"
#include "uts.hpp"

namespace fjb::uts {
namespace {

tree_count search(const tree_shape& shape, const node& parent) {
  const int children = child_count(shape, parent);
  if (children == 0) {
    return {1, 1};
  }
  std::vector<tree_count> parts(static_cast<std::size_t>(children));
  for (int i = 0; i < children; ++i) {
    const node child = child_of(parent, i);
#pragma omp task shared(shape, parts)
    parts[static_cast<std::size_t>(i)] = search(shape, child);
  }
#pragma omp taskwait
  tree_count total{1, 0};
  for (const auto& part : parts) {
    total += part;
  }
  return total;
}

template <tree_id Id>
run_result run(const run_request& request) {
  const tree_shape& shape = tree_at(Id, request.size).shape;
  omp_team team(request.workers);
  tree_count answer{};
  const double seconds = team.time([&] { answer = search(shape, root_of(shape)); });
  verify(Id, request.size, answer);
  return {seconds};
}

const implementation_registrar t1{"T1", "omp", run<tree_id::t1>};
const implementation_registrar t1l{"T1L", "omp", run<tree_id::t1l>};
const implementation_registrar t1xxl{"T1XXL", "omp", run<tree_id::t1xxl>};
const implementation_registrar t3{"T3", "omp", run<tree_id::t3>};
const implementation_registrar t3l{"T3L", "omp", run<tree_id::t3l>};
const implementation_registrar t3xxl{"T3XXL", "omp", run<tree_id::t3xxl>};

}  // namespace
}  // namespace fjb::uts
