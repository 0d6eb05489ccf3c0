// forkjoin's algorithms (include/forkjoin/algorithm.hpp) on a lazy_pool with the requested worker count.
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <memory>
#include <vector>

#include "kernels.hpp"

namespace fja {
namespace {

// One pool per worker count, kept for the whole run (made at the first call, outside the timed region of
// every later call; the driver runs a warm-up first). Indexed by the count: a map lookup cost about 35
// instructions per call, a tenth of what a call on 10^3 elements may add over the serial one.
fj::lazy_pool& pool(int workers) {
  static std::vector<std::unique_ptr<fj::lazy_pool>> pools;
  auto const w = static_cast<std::size_t>(workers);
  if (w >= pools.size()) pools.resize(w + 1);
  auto& p = pools[w];
  if (!p) p = std::make_unique<fj::lazy_pool>(w);
  return *p;
}

}  // namespace

kernels forkjoin_kernels() {
  kernels k;
  k.name = "forkjoin";
  k.for_each = [](std::span<value> xs, int w) { fj::for_each(pool(w), xs, [](value& x) { x = step(x); }); };
  k.transform = [](std::span<const value> in, std::span<value> out, int w) {
    fj::transform(pool(w), in.begin(), in.end(), out.begin(), [](value x) { return step(x); });
  };
  k.reduce = [](std::span<const value> xs, int w) {
    return fj::reduce(pool(w), xs, value{0}, std::plus<>{});
  };
  k.transform_reduce = [](std::span<const value> xs, int w) {
    return fj::transform_reduce(pool(w), xs, value{0}, std::plus<>{}, [](value x) { return x * x; });
  };
  k.inclusive_scan = [](std::span<const value> in, std::span<value> out, int w) {
    fj::inclusive_scan(pool(w), in.begin(), in.end(), out.begin());
  };
  k.exclusive_scan = [](std::span<const value> in, std::span<value> out, int w) {
    fj::exclusive_scan(pool(w), in.begin(), in.end(), out.begin(), value{0});
  };
  k.count_if = [](std::span<const value> xs, int w) {
    return fj::count_if(pool(w), xs, [](value x) { return counted(x); });
  };
  k.find = [](std::span<const value> xs, value target, int w) {
    auto it = fj::find_if(pool(w), xs.begin(), xs.end(), [target](value x) { return x == target; });
    return static_cast<std::size_t>(it - xs.begin());
  };
  k.sort = [](std::span<key> xs, int w) { fj::sort(pool(w), xs); };
  k.stable_sort = [](std::span<key> xs, int w) { fj::stable_sort(pool(w), xs); };
  return k;
}

}  // namespace fja
