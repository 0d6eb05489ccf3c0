#include "quicksort.hpp"
#include "stopwatch.hpp"

namespace fjb::quicksort {
namespace {

void sort(int* first, int* last) {
  if (last - first <= cutoff) {
    std::sort(first, last);
    return;
  }
  int* middle = partition_around_middle(first, last);
  sort(first, middle);
  sort(middle + 1, last);
}

run_result run(const run_request& request) {
  std::vector<int> values = random_input(element_count(request));
  const double seconds = seconds_taken([&] { sort(values.data(), values.data() + values.size()); });
  verify(values);
  return {seconds};
}

const implementation_registrar registrar{"quicksort", "serial", run};

}  // namespace
}  // namespace fjb::quicksort
