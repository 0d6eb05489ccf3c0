#include "quicksort.hpp"
#include "teams/omp_team.hpp"

namespace fjb::quicksort {
namespace {

void sort(int* first, int* last) {
  if (last - first <= cutoff) {
    std::sort(first, last);
    return;
  }
  int* middle = partition_around_middle(first, last);
#pragma omp task
  sort(first, middle);
  sort(middle + 1, last);
#pragma omp taskwait
}

run_result run(const run_request& request) {
  std::vector<int> values = random_input(element_count(request.size));
  omp_team team(request.workers);
  const double seconds = team.time([&] { sort(values.data(), values.data() + values.size()); });
  verify(values);
  return {seconds};
}

const implementation_registrar registrar{"quicksort", "omp", run};

}  // namespace
}  // namespace fjb::quicksort
