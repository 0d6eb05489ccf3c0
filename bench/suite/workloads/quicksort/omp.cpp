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

const implementation_registrar registrar{"quicksort", "omp", run_on_team<omp_team, sort>};

}  // namespace
}  // namespace fjb::quicksort
