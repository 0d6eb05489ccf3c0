#include "quicksort.hpp"
#include "teams/fj_team.hpp"

namespace fjb::quicksort {
namespace {

// Child stealing with a plain function: forkjoin.cpp's algorithm and cutoff, written with fj::scope.
void sort(int* first, int* last) {
  if (last - first <= cutoff) {
    std::sort(first, last);
    return;
  }
  int* middle = partition_around_middle(first, last);
  fj::scope s;
  s.spawn(sort, first, middle);
  sort(middle + 1, last);
  s.sync();
}

run_result run(const run_request& request) {
  std::vector<int> values = random_input(element_count(request));
  fj_team<fj::lazy_pool> team(request.workers);
  const double seconds = team.time(
      [&](fj::lazy_pool& pool) { fj::sync_wait(pool, sort, values.data(), values.data() + values.size()); });
  verify(values);
  return {seconds};
}

const implementation_registrar spawn{"quicksort", "fj-spawn", run};

}  // namespace
}  // namespace fjb::quicksort
