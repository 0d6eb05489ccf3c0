// std::execution::par: libstdc++'s parallel algorithms, which run on oneTBB. Their thread count is capped
// with tbb::global_control for the duration of each call.
#include <tbb/global_control.h>

#include <algorithm>
#include <execution>
#include <numeric>

#include "kernels.hpp"

namespace fja {
namespace {

tbb::global_control limit(int workers) {
  return {tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(workers)};
}

}  // namespace

kernels std_par_kernels() {
  namespace ex = std::execution;
  kernels k;
  k.name = "std::execution::par";
  k.for_each = [](std::span<value> xs, int w) {
    auto const l = limit(w);
    std::for_each(ex::par, xs.begin(), xs.end(), [](value& x) { x = step(x); });
  };
  k.transform = [](std::span<const value> in, std::span<value> out, int w) {
    auto const l = limit(w);
    std::transform(ex::par, in.begin(), in.end(), out.begin(), [](value x) { return step(x); });
  };
  k.reduce = [](std::span<const value> xs, int w) {
    auto const l = limit(w);
    return std::reduce(ex::par, xs.begin(), xs.end(), value{0});
  };
  k.transform_reduce = [](std::span<const value> xs, int w) {
    auto const l = limit(w);
    return std::transform_reduce(ex::par, xs.begin(), xs.end(), value{0}, std::plus<>{},
                                 [](value x) { return x * x; });
  };
  k.inclusive_scan = [](std::span<const value> in, std::span<value> out, int w) {
    auto const l = limit(w);
    std::inclusive_scan(ex::par, in.begin(), in.end(), out.begin());
  };
  k.exclusive_scan = [](std::span<const value> in, std::span<value> out, int w) {
    auto const l = limit(w);
    std::exclusive_scan(ex::par, in.begin(), in.end(), out.begin(), value{0});
  };
  k.count_if = [](std::span<const value> xs, int w) {
    auto const l = limit(w);
    return std::count_if(ex::par, xs.begin(), xs.end(), [](value x) { return counted(x); });
  };
  k.find = [](std::span<const value> xs, value target, int w) {
    auto const l = limit(w);
    return static_cast<std::size_t>(std::find(ex::par, xs.begin(), xs.end(), target) - xs.begin());
  };
  k.sort = [](std::span<key> xs, int w) {
    auto const l = limit(w);
    std::sort(ex::par, xs.begin(), xs.end());
  };
  k.stable_sort = [](std::span<key> xs, int w) {
    auto const l = limit(w);
    std::stable_sort(ex::par, xs.begin(), xs.end());
  };
  return k;
}

}  // namespace fja
