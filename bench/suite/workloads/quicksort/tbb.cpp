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

const implementation_registrar registrar{"quicksort", "tbb", run_on_team<tbb_team, sort>};

}  // namespace
}  // namespace fjb::quicksort
