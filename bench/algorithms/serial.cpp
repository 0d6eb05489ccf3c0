// The serial std:: algorithms: the baseline of every speedup.
#include <algorithm>
#include <numeric>

#include "kernels.hpp"

namespace fja {

kernels serial_kernels() {
  kernels k;
  k.name = "serial std::";
  k.for_each = [](std::span<value> xs, int) {
    std::for_each(xs.begin(), xs.end(), [](value& x) { x = step(x); });
  };
  k.transform = [](std::span<const value> in, std::span<value> out, int) {
    std::transform(in.begin(), in.end(), out.begin(), [](value x) { return step(x); });
  };
  k.reduce = [](std::span<const value> xs, int) { return std::reduce(xs.begin(), xs.end(), value{0}); };
  k.transform_reduce = [](std::span<const value> xs, int) {
    return std::transform_reduce(xs.begin(), xs.end(), value{0}, std::plus<>{},
                                 [](value x) { return x * x; });
  };
  k.inclusive_scan = [](std::span<const value> in, std::span<value> out, int) {
    std::inclusive_scan(in.begin(), in.end(), out.begin());
  };
  k.exclusive_scan = [](std::span<const value> in, std::span<value> out, int) {
    std::exclusive_scan(in.begin(), in.end(), out.begin(), value{0});
  };
  k.count_if = [](std::span<const value> xs, int) {
    return std::count_if(xs.begin(), xs.end(), [](value x) { return counted(x); });
  };
  k.find = [](std::span<const value> xs, value target, int) {
    return static_cast<std::size_t>(std::find(xs.begin(), xs.end(), target) - xs.begin());
  };
  k.sort = [](std::span<key> xs, int) { std::sort(xs.begin(), xs.end()); };
  k.stable_sort = [](std::span<key> xs, int) { std::stable_sort(xs.begin(), xs.end()); };
  return k;
}

}  // namespace fja
