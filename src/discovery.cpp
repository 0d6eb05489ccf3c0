// fj::topology's discovery of the real machine (include/forkjoin/topology.hpp): hwloc when forkjoin is built
// with it (FJ_HAVE_HWLOC, set for this file only by CMakeLists.txt), Linux sysfs otherwise or when hwloc
// fails, and a uniform tree when neither works. Cold: runs once per pool.

#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include "forkjoin/topology.hpp"

#if defined(FJ_HAVE_HWLOC) && FJ_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace fj {

namespace {

// Helpers for reading a sysfs tree.

// Reads the first line of a sysfs file; empty if it cannot be read.
std::string read_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (in) {
    std::getline(in, line);
  }
  return line;
}

// Parses a CPU list such as "0-3,8,10-11". Returns false on anything else.
bool parse_cpu_list(const std::string& text, std::set<unsigned>& out) {
  std::istringstream in(text);
  std::string item;
  bool any = false;
  while (std::getline(in, item, ',')) {
    if (item.empty()) {
      continue;
    }
    const std::size_t dash = item.find('-');
    try {
      const unsigned long lo = std::stoul(item.substr(0, dash));
      const unsigned long hi = dash == std::string::npos ? lo : std::stoul(item.substr(dash + 1));
      if (hi < lo || hi > 1'000'000) {
        return false;
      }
      for (unsigned long c = lo; c <= hi; ++c) {
        out.insert(static_cast<unsigned>(c));
      }
      any = true;
    } catch (const std::exception&) {
      return false;
    }
  }
  return any;
}

// The smallest CPU of a CPU-list file: a label for the group of CPUs that share something. Missing: ~0U.
std::uint32_t group_label(const std::filesystem::path& file) {
  std::set<unsigned> cpus;
  if (!parse_cpu_list(read_line(file), cpus)) {
    return ~0U;
  }
  return *cpus.begin();
}

std::string format_cpu_list(const std::set<unsigned>& cpus) {
  std::string text;
  for (auto it = cpus.begin(); it != cpus.end();) {
    const unsigned lo = *it;
    unsigned hi = lo;
    for (++it; it != cpus.end() && *it == hi + 1; ++it) {
      ++hi;
    }
    // Appended piece by piece: g++-12 -O3 warns falsely (-Wrestrict, GCC PR 105329) on "literal" + string.
    if (!text.empty()) text += ',';
    text += std::to_string(lo);
    if (hi != lo) {
      text += '-';
      text += std::to_string(hi);
    }
  }
  return text;
}

}  // namespace

topology topology::from_sysfs(const std::string& root_text, bool only_allowed_cpus) {
  namespace fs = std::filesystem;
  const fs::path root(root_text);
  const auto fallback = [](const std::string& why) {
    const unsigned n = std::thread::hardware_concurrency();
    return uniform(n == 0 ? 1 : n, why + "; all cores at distance 1");
  };
  try {
    const fs::path cpu_root = root / "cpu";
    std::set<unsigned> cpus;
    if (!parse_cpu_list(read_line(cpu_root / "online"), cpus)) {
      return fallback("sysfs not readable (" + (cpu_root / "online").string() + ")");
    }
#if defined(__linux__)
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (only_allowed_cpus && ::sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
      std::erase_if(cpus, [&](unsigned c) { return c >= CPU_SETSIZE || !CPU_ISSET(c, &allowed); });
    }
#else
    (void)only_allowed_cpus;
#endif
    if (cpus.empty()) {
      return fallback("no online CPU in this thread's affinity mask");
    }

    std::map<unsigned, unsigned> node_of;  // cpu -> NUMA node
    const fs::path node_root = root / "node";
    std::error_code ec;
    for (fs::directory_iterator it(node_root, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.size() > 4 && name.compare(0, 4, "node") == 0 &&
          name.find_first_not_of("0123456789", 4) == std::string::npos) {
        std::set<unsigned> members;
        if (parse_cpu_list(read_line(it->path() / "cpulist"), members)) {
          for (const unsigned c : members) {
            node_of[c] = static_cast<unsigned>(std::stoul(name.substr(4)));
          }
        }
      }
    }

    std::vector<core> cores;
    std::set<std::uint32_t> nodes;
    std::set<std::uint32_t> packages;
    std::set<std::pair<std::uint32_t, std::uint32_t>> l3s;
    std::set<std::pair<std::uint32_t, std::uint32_t>> l2s;
    std::set<std::uint32_t> physical;
    for (const unsigned c : cpus) {
      const fs::path dir = cpu_root / ("cpu" + std::to_string(c));
      core k;
      k.cpu = c;
      const auto node = node_of.find(c);
      k.numa_node = node == node_of.end() ? 0U : node->second;
      std::uint32_t package = ~0U;
      const std::string package_text = read_line(dir / "topology" / "physical_package_id");
      if (!package_text.empty() && package_text[0] != '-') {
        package = static_cast<std::uint32_t>(std::stoul(package_text));
      }
      std::uint32_t l3 = ~0U;
      std::uint32_t l2 = ~0U;
      for (fs::directory_iterator it(dir / "cache", ec), end; !ec && it != end; it.increment(ec)) {
        if (read_line(it->path() / "type") == "Instruction") {
          continue;
        }
        const std::string level = read_line(it->path() / "level");
        if (level == "3") {
          l3 = group_label(it->path() / "shared_cpu_list");
        } else if (level == "2") {
          l2 = group_label(it->path() / "shared_cpu_list");
        }
      }
      ec.clear();
      std::uint32_t phys = group_label(dir / "topology" / "thread_siblings_list");
      if (phys == ~0U) {
        phys = c;
      }
      k.path = {k.numa_node, package, l3, l2, phys};
      nodes.insert(k.numa_node);
      packages.insert(package);
      l3s.insert({package, l3});
      l2s.insert({package, l2});
      physical.insert(phys);
      cores.push_back(std::move(k));
    }
    const auto count = [](std::size_t n, const char* what) {
      return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
    };
    std::string text = "sysfs: " + count(cores.size(), "core") + " (cpus " + format_cpu_list(cpus) + "), " +
                       count(nodes.size(), "NUMA node") + ", " + count(packages.size(), "package") + ", " +
                       count(l3s.size(), "L3 group") + ", " + count(l2s.size(), "L2 group") + ", " +
                       count(physical.size(), "physical core");
    topology t(std::move(cores), std::move(text));
    t.describe_victims();
    return t;
  } catch (const std::exception& e) {
    return fallback(std::string("sysfs discovery failed: ") + e.what());
  }
}

#if defined(FJ_HAVE_HWLOC) && FJ_HAVE_HWLOC
std::optional<topology> topology::from_hwloc() {
  hwloc_topology_t handle = nullptr;
  if (hwloc_topology_init(&handle) != 0) return std::nullopt;
  struct closer {
    hwloc_topology_t h;
    ~closer() { hwloc_topology_destroy(h); }
  } const close{handle};
  if (hwloc_topology_load(handle) != 0) return std::nullopt;
  int const count = hwloc_get_nbobjs_by_type(handle, HWLOC_OBJ_PU);
  if (count <= 0) return std::nullopt;
  std::vector<core> cores;
  std::set<unsigned> nodes;
  for (int i = 0; i < count; ++i) {
    hwloc_obj* const pu = hwloc_get_obj_by_type(handle, HWLOC_OBJ_PU, static_cast<unsigned>(i));
    core k;
    k.cpu = pu->os_index;
    int const node = pu->nodeset != nullptr ? hwloc_bitmap_first(pu->nodeset) : -1;
    k.numa_node = node < 0 ? 0U : static_cast<unsigned>(node);
    // NUMA nodes hang off the CPU tree in hwloc 2 (memory children), so the node comes first in the path,
    // then every CPU-side ancestor below the machine (package, caches, core), outermost first.
    std::vector<std::uint32_t> below;
    for (hwloc_obj_t a = pu->parent; a != nullptr && a->parent != nullptr; a = a->parent) {
      below.push_back(static_cast<std::uint32_t>(a->logical_index));
    }
    k.path.push_back(k.numa_node);
    k.path.insert(k.path.end(), below.rbegin(), below.rend());
    nodes.insert(k.numa_node);
    cores.push_back(std::move(k));
  }
  std::string text = "hwloc: " + std::to_string(cores.size()) + " processing unit(s), " +
                     std::to_string(nodes.size()) + " NUMA node(s)";
  topology t(std::move(cores), std::move(text));
  t.describe_victims();
  return t;
}
#else
std::optional<topology> topology::from_hwloc() { return std::nullopt; }
#endif

topology topology::discover() {
  if (std::optional<topology> t = from_hwloc()) return std::move(*t);
  return from_sysfs("/sys/devices/system", true);
}

}  // namespace fj
