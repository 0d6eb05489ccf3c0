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

run_result run(tree_id id, const run_request& request) {
  const tree_case tree = tree_for(id, request);
  const tree_shape& shape = tree.shape;
  tree_count answer{};
  const double seconds = seconds_taken([&] { answer = search(shape, root_of(shape)); });
  verify(id, tree, answer);
  return {seconds};
}

const tree_registrars<run> registrars{"serial"};

}  // namespace
}  // namespace fjb::uts
