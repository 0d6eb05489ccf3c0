#include "quicksort.hpp"
#include "teams/fj_team.hpp"

namespace fjb::quicksort {
namespace {

fj::task<void> sort(int* first, int* last) {
  if (last - first <= cutoff) {
    std::sort(first, last);
    co_return;
  }
  int* middle = partition_around_middle(first, last);
  co_await fj::fork(sort, first, middle);
  co_await fj::call(sort, middle + 1, last);
  co_await fj::join;
}

template <class Pool>
run_result run(const run_request& request) {
  std::vector<int> values = random_input(element_count(request));
  fj_team<Pool> team(request.workers);
  const double seconds =
      team.time([&](Pool& pool) { fj::sync_wait(pool, sort, values.data(), values.data() + values.size()); });
  verify(values);
  return {seconds};
}

const implementation_registrar busy{"quicksort", "fj-busy", run<fj::busy_pool>};
const implementation_registrar lazy{"quicksort", "fj-lazy", run<fj::lazy_pool>};
const implementation_registrar unit{"quicksort", "fj-unit", run<fj::unit_pool>};

}  // namespace
}  // namespace fjb::quicksort
