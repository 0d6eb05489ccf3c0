#include "stopwatch.hpp"
#include "uts.hpp"

namespace fjb::uts {
namespace {

tree_count search(const tree_shape& shape, const node& parent) {
  const int children = child_count(shape, parent);
  if (children == 0) {
    return {1, 1};
  }
  tree_count total{1, 0};
  for (int i = 0; i < children; ++i) {
    total += search(shape, child_of(parent, i));
  }
  return total;
}

template <tree_id Id>
run_result run(const run_request& request) {
  const tree_shape& shape = tree_at(Id, request.size).shape;
  tree_count answer{};
  const double seconds = seconds_taken([&] { answer = search(shape, root_of(shape)); });
  verify(Id, request.size, answer);
  return {seconds};
}

const implementation_registrar t1{"T1", "serial", run<tree_id::t1>};
const implementation_registrar t1l{"T1L", "serial", run<tree_id::t1l>};
const implementation_registrar t1xxl{"T1XXL", "serial", run<tree_id::t1xxl>};
const implementation_registrar t3{"T3", "serial", run<tree_id::t3>};
const implementation_registrar t3l{"T3L", "serial", run<tree_id::t3l>};
const implementation_registrar t3xxl{"T3XXL", "serial", run<tree_id::t3xxl>};

}  // namespace
}  // namespace fjb::uts
