#include "blkmul.hpp"
#include "stopwatch.hpp"

namespace fjb::blkmul {
namespace {

run_result run(const run_request& request) {
  operands m = make_operands(order(request));
  const double seconds = seconds_taken([&] {
    for (std::size_t index = 0; index < tile_count(m); ++index) {
      compute_tile(m, index);
    }
  });
  verify(m);
  return {seconds};
}

const implementation_registrar registrar{"blkmul", "serial", run};

}  // namespace
}  // namespace fjb::blkmul
