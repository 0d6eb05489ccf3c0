// The threshold of the algorithms' streaming stores (include/forkjoin/detail/algorithm/streaming_store.hpp):
// the last-level cache's size, read once.

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <fstream>
#include <string>

#include "forkjoin/detail/algorithm/streaming_store.hpp"

namespace fj::detail::algo {

namespace {

// Where neither Linux nor the C library can tell, a size between those of current caches per core complex.
constexpr std::size_t fallback_cache_bytes = std::size_t{32} << 20;

// The size of the first CPU's highest-level cache as Linux describes it (sysfs), or 0. Preferred to the C
// library's figure: in a virtual machine glibc's sysconf reported the host's 320 MiB where sysfs and the
// hardware's per-complex cache were 32 MiB.
std::size_t sysfs_last_level_cache_bytes() {
  int best_level = 0;
  std::size_t best_bytes = 0;
  for (int index = 0; index < 16; ++index) {
    std::string const dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level");
    std::ifstream size_file(dir + "size");
    int level = 0;
    std::size_t size = 0;
    std::string unit;
    if (!(level_file >> level) || !(size_file >> size)) continue;
    size_file >> unit;  // "K", "M" or nothing ("32768K" is read as 32768, then "K")
    if (unit == "K") size <<= 10;
    if (unit == "M") size <<= 20;
    if (level > best_level) {
      best_level = level;
      best_bytes = size;
    }
  }
  return best_bytes;
}

std::size_t last_level_cache_bytes() noexcept {
  std::size_t bytes = 0;
  try {
    bytes = sysfs_last_level_cache_bytes();
  } catch (const std::exception&) {
    bytes = 0;  // an allocation failed while reading sysfs: ask the C library instead
  }
  if (bytes > 0) return bytes;
#if defined(_SC_LEVEL3_CACHE_SIZE)  // glibc
  for (int const level : {_SC_LEVEL4_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    long const reported = sysconf(level);
    if (reported > 0) return static_cast<std::size_t>(reported);
  }
#endif
  return fallback_cache_bytes;
}

}  // namespace

std::size_t streaming_threshold_bytes() noexcept {
  static std::size_t const bytes = std::max(last_level_cache_bytes(), stream_min_bytes);
  return bytes;
}

}  // namespace fj::detail::algo
