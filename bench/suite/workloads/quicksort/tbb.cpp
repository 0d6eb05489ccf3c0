#include <tbb/parallel_invoke.h>

#include "quicksort.hpp"
#include "teams/tbb_team.hpp"

namespace fjb::quicksort {
namespace {

void sort(int* first, int* last) {
  if (last - first <= cutoff) {
    std::sort(first, last);
    return;
  }
  int* middle = partition_around_middle(first, last);
  tbb::parallel_invoke([=] { sort(first, middle); }, [=] { sort(middle + 1, last); });
}

run_result run(const run_request& request) {
  std::vector<int> values = random_input(element_count(request.size));
  tbb_team team(request.workers);
  const double seconds = team.time([&] { sort(values.data(), values.data() + values.size()); });
  verify(values);
  return {seconds};
}

const implementation_registrar registrar{"quicksort", "tbb", run};

}  // namespace
}  // namespace fjb::quicksort
