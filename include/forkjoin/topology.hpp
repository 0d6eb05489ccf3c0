#pragma once
// The machine as a tree (machine > NUMA node > package > L3 > L2 > physical core > logical CPU) and the
// victim-selection weights the libfork paper derives from it (Section III-D, Eq. 6):
//
//     w_ij = 1 / (n_ij * r_ij^2)
//
// r_ij is the topological distance between cores i and j, the larger of the two leaves' distances to their
// lowest common ancestor, and n_ij the number of cores at distance r_ij from i. So each distance class r gets
// total weight 1/r^2, spread evenly over the cores in it: a thief looks mostly next door, rarely far away.
//
// Deviations from the paper:
//  - tree nodes with a single child are merged with it before distances are measured: a level that does not
//    branch (a core with one hardware thread, a package with one L3) says nothing about who shares what, and
//    counting it would change the ratios between distance classes;
//  - discover() reads Linux sysfs instead of hwloc, and falls back to a flat (uniform) tree where sysfs is
//  not
//    available; description() says which.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
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

#include "forkjoin/errors.hpp"

#if defined(FJ_HAVE_HWLOC) && FJ_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace fj {

class topology {
 public:
  // One core (a logical CPU a worker can be pinned to) as the tree sees it.
  struct core {
    unsigned cpu = 0;        // the operating system's CPU number, for pinning
    unsigned numa_node = 0;  // the operating system's NUMA node number
    // Labels of the groups that contain this core, outermost first, below the machine. Labels need only be
    // distinct among siblings: two cores share a group at level k iff their paths agree on entries 0..k.
    // The core itself is the leaf under the last group; paths may differ in length.
    std::vector<std::uint32_t> path;
  };

  // A topology over the given cores (in worker order). Throws fj::invalid_config_error if cores is empty.
  static topology from_cores(std::vector<core> cores, std::string description) {
    return topology(std::move(cores), std::move(description));
  }

  // A regular tree for tests: fanout lists the children of each node from the machine down, the last entry
  // being cores per lowest group. With two or more entries the machine's children are the NUMA nodes:
  // synthetic({2, 2, 4}) is 2 NUMA nodes x 2 L3 groups x 4 cores (16 cores); synthetic({8}) is one node of
  // 8 cores. Cores are numbered depth first, CPU numbers equal to their index.
  static topology synthetic(const std::vector<std::size_t>& fanout) {
    if (fanout.empty() || std::find(fanout.begin(), fanout.end(), std::size_t{0}) != fanout.end()) {
      throw invalid_config_error("synthetic topology needs a non-empty fanout without zeros");
    }
    std::size_t n = 1;
    for (const std::size_t f : fanout) {
      n *= f;
    }
    std::vector<core> cores(n);
    std::ostringstream text;
    for (std::size_t i = 0; i < n; ++i) {
      // Mixed-radix digits of i, most significant first; the last digit is the core within its group.
      std::vector<std::uint32_t> digits(fanout.size());
      std::size_t rest = i;
      for (std::size_t level = fanout.size(); level-- > 0;) {
        digits[level] = static_cast<std::uint32_t>(rest % fanout[level]);
        rest /= fanout[level];
      }
      cores[i].cpu = static_cast<unsigned>(i);
      cores[i].numa_node = fanout.size() >= 2 ? digits[0] : 0U;
      cores[i].path.assign(digits.begin(), digits.end() - 1);
    }
    text << "synthetic";
    for (std::size_t level = 0; level < fanout.size(); ++level) {
      text << (level == 0 ? " " : "x") << fanout[level];
    }
    text << ": " << n << " cores";
    return topology(std::move(cores), text.str());
  }

  // n cores, every pair at distance 1 (uniform victim selection), one NUMA node. `why` goes into
  // description().
  static topology uniform(std::size_t n, const std::string& why = "flat") {
    std::vector<core> cores(n);
    for (std::size_t i = 0; i < n; ++i) {
      cores[i].cpu = static_cast<unsigned>(i);
    }
    return topology(std::move(cores), "uniform (" + why + "): " + std::to_string(n) + " cores");
  }

  // This machine's CPUs that the calling thread may run on: from hwloc when forkjoin was built with it
  // (FJ_HAVE_HWLOC, the CMake option FJ_WITH_HWLOC), else from Linux sysfs. Falls back to
  // uniform(hardware_concurrency) when neither works; description() says which happened. Never throws.
  static topology discover() {
#if defined(FJ_HAVE_HWLOC) && FJ_HAVE_HWLOC
    if (std::optional<topology> t = from_hwloc()) return std::move(*t);
#endif
    return from_sysfs("/sys/devices/system", true);
  }

#if defined(FJ_HAVE_HWLOC) && FJ_HAVE_HWLOC
  // The topology as hwloc sees it (processing units the process may use, their ancestors, NUMA nodes), or
  // nothing if hwloc fails.
  static std::optional<topology> from_hwloc();
#endif

  // The topology described by a sysfs tree at `root` (normally /sys/devices/system: root/cpu/online,
  // root/cpu/cpuN/{topology,cache}, root/node/nodeM/cpulist), for tests with a fake tree. With
  // only_allowed_cpus, CPUs outside the calling thread's affinity mask are left out.
  static topology from_sysfs(const std::filesystem::path& root, bool only_allowed_cpus = false);

  // The same machine restricted to the given cores (indices into this topology, in the new worker order),
  // with the tree recompressed. For a pool with fewer workers than cores. Throws fj::invalid_config_error on
  // an empty list or an index out of range.
  [[nodiscard]] topology subset(const std::vector<std::size_t>& indices) const {
    std::vector<core> chosen;
    chosen.reserve(indices.size());
    for (const std::size_t i : indices) {
      if (i >= cores_.size()) {
        throw invalid_config_error("topology subset index " + std::to_string(i) + " out of range");
      }
      chosen.push_back(cores_[i]);
    }
    return topology(std::move(chosen), description_ + "; subset of " + std::to_string(indices.size()));
  }

  [[nodiscard]] std::size_t size() const noexcept { return cores_.size(); }
  [[nodiscard]] const core& at(std::size_t i) const { return cores_.at(i); }
  [[nodiscard]] unsigned cpu(std::size_t i) const { return cores_.at(i).cpu; }

  // NUMA nodes renumbered densely 0..numa_nodes()-1 in order of first appearance: the lazy pool's groups.
  [[nodiscard]] std::size_t numa_nodes() const noexcept { return numa_count_; }
  [[nodiscard]] std::size_t numa_group(std::size_t i) const { return numa_group_.at(i); }

  // Topological distance between cores i and j (0 iff i == j), in the compressed tree.
  [[nodiscard]] std::uint32_t distance(std::size_t i, std::size_t j) const {
    const std::vector<std::uint32_t>& a = chains_.at(i);
    const std::vector<std::uint32_t>& b = chains_.at(j);
    std::size_t common = 0;
    while (common < a.size() && common < b.size() && a[common] == b[common]) {
      ++common;
    }
    return static_cast<std::uint32_t>(std::max(a.size(), b.size()) - common);
  }

  // Eq. 6 normalised: entry j is the probability that core i picks victim j; entry i is 0. The entries sum to
  // 1 (up to rounding) when size() >= 2; for a single core the one entry is 0.
  [[nodiscard]] std::vector<double> victim_weights(std::size_t i) const {
    const std::size_t n = size();
    std::vector<std::uint32_t> r(n);
    std::map<std::uint32_t, std::size_t> at_distance;  // n_ij, by r_ij
    for (std::size_t j = 0; j < n; ++j) {
      r[j] = distance(i, j);
      if (j != i) {
        ++at_distance[r[j]];
      }
    }
    std::vector<double> w(n, 0.0);
    double total = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      if (j != i) {
        const double rij = static_cast<double>(r[j]);
        w[j] = 1.0 / (static_cast<double>(at_distance[r[j]]) * rij * rij);
        total += w[j];
      }
    }
    for (double& x : w) {
      x = total > 0.0 ? x / total : 0.0;
    }
    return w;
  }

  // True when every pair of distinct cores is at the same distance, so victim selection is uniform.
  [[nodiscard]] bool is_uniform() const noexcept { return uniform_; }

  // One line: where the tree came from and what it holds, e.g.
  // "sysfs: 2 cores (cpus 0-1), 1 NUMA node, 1 package, 1 L3 group, 2 L2 groups, 2 physical cores; all cores
  // at distance 1 (uniform victims)", or "uniform (sysfs not readable (...); all cores at distance 1): 2
  // cores".
  [[nodiscard]] const std::string& description() const noexcept { return description_; }

 private:
  topology(std::vector<core> cores, std::string description)
      : cores_(std::move(cores)), description_(std::move(description)) {
    if (cores_.empty()) {
      throw invalid_config_error("a topology needs at least one core");
    }
    build_chains();
    std::map<unsigned, std::size_t> dense;
    numa_group_.reserve(cores_.size());
    for (const core& c : cores_) {
      numa_group_.push_back(dense.try_emplace(c.numa_node, dense.size()).first->second);
    }
    numa_count_ = dense.size();
    // Uniform iff every pair is at distance 1: in a tree whose internal nodes all branch, two cores at
    // distance d > 1 have a third core nearer to one of them.
    uniform_ = true;
    for (std::size_t i = 0; i < cores_.size() && uniform_; ++i) {
      for (std::size_t j = i + 1; j < cores_.size(); ++j) {
        if (distance(i, j) != 1) {
          uniform_ = false;
          break;
        }
      }
    }
  }

  // Builds the tree (root = node 0, one leaf per core), then stores for each core the chain of node ids from
  // the root to its leaf, leaving out the nodes with a single child.
  void build_chains() {
    std::vector<std::uint32_t> parent{0};
    std::vector<std::size_t> children{0};
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> child_of;  // (parent, label) -> node
    auto add_node = [&](std::uint32_t p) {
      const auto id = static_cast<std::uint32_t>(parent.size());
      parent.push_back(p);
      children.push_back(0);
      ++children[p];
      return id;
    };
    std::vector<std::vector<std::uint32_t>> full(cores_.size());
    for (std::size_t i = 0; i < cores_.size(); ++i) {
      std::uint32_t node = 0;
      full[i].push_back(node);
      for (const std::uint32_t label : cores_[i].path) {
        auto [it, inserted] = child_of.try_emplace({node, label}, 0U);
        if (inserted) {
          it->second = add_node(node);
        }
        node = it->second;
        full[i].push_back(node);
      }
      full[i].push_back(add_node(node));  // the core's own leaf
    }
    chains_.resize(cores_.size());
    for (std::size_t i = 0; i < cores_.size(); ++i) {
      for (const std::uint32_t node : full[i]) {
        if (children[node] != 1) {
          chains_[i].push_back(node);
        }
      }
    }
  }

  std::vector<core> cores_;
  std::string description_;
  std::vector<std::vector<std::uint32_t>> chains_;  // compressed root-to-leaf node ids, per core
  std::vector<std::size_t> numa_group_;
  std::size_t numa_count_ = 0;
  bool uniform_ = true;
};

namespace detail {

// xoshiro256** (Blackman and Vigna), seeded through splitmix64: a fast generator for the steal loop, not for
// anything that needs unpredictability.
class xoshiro256ss {
 public:
  explicit xoshiro256ss(std::uint64_t seed) noexcept {
    for (std::uint64_t& word : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }

  std::uint64_t operator()() noexcept {
    const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }

 private:
  std::uint64_t s_[4]{};
};

}  // namespace detail

// Draws steal victims for one worker with the probabilities of topology::victim_weights(self), in constant
// time (Walker's alias method, built with Vose's algorithm). Never returns self, unless self is the only
// core. Not thread-safe: one sampler per worker.
class victim_sampler {
 public:
  victim_sampler(const topology& topo, std::size_t self, std::uint64_t seed) : self_(self), rng_(seed) {
    const std::vector<double> w = topo.victim_weights(self);
    const std::size_t m = w.size() - 1;  // candidates: everyone but self
    if (m == 0) {
      return;
    }
    // Vose: scale to mean 1, then pair each under-full column with an over-full donor.
    std::vector<double> scaled(m);
    for (std::size_t c = 0; c < m; ++c) {
      scaled[c] = w[core_of(c)] * static_cast<double>(m);
    }
    std::vector<std::size_t> small;
    std::vector<std::size_t> large;
    for (std::size_t c = 0; c < m; ++c) {
      (scaled[c] < 1.0 ? small : large).push_back(c);
    }
    columns_.assign(m, column{k_always, 0});
    while (!small.empty() && !large.empty()) {
      const std::size_t s = small.back();
      small.pop_back();
      const std::size_t l = large.back();
      columns_[s] = column{to_threshold(scaled[s]), static_cast<std::uint32_t>(l)};
      scaled[l] -= 1.0 - scaled[s];
      if (scaled[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    // Whatever is left is 1 up to rounding: those columns always keep their own core (k_always, set above).
  }

  // The next victim: an index into the topology, != self when size() >= 2.
  [[nodiscard]] std::size_t operator()() noexcept {
    if (columns_.empty()) {
      return self_;
    }
    const std::uint64_t x = rng_();
    // Lemire's multiply-shift maps the high half to a column; the low half decides column or alias.
    const auto c = static_cast<std::size_t>(((x >> 32) * columns_.size()) >> 32);
    const column& col = columns_[c];
    const std::size_t chosen = (x & 0xffff'ffffULL) < col.threshold ? c : col.alias;
    return core_of(chosen);
  }

  [[nodiscard]] std::size_t self() const noexcept { return self_; }

 private:
  static constexpr std::uint64_t k_always = std::uint64_t{1} << 32;

  struct column {
    std::uint64_t threshold;  // keep this column's core iff the low 32 random bits are below it
    std::uint32_t alias;      // otherwise take this column's core
  };

  static std::uint64_t to_threshold(double p) noexcept {
    const double t = p * 4294967296.0;
    if (t <= 0.0) {
      return 0;
    }
    return t >= 4294967296.0 ? k_always : static_cast<std::uint64_t>(t);
  }

  // Column c stands for core c, skipping self.
  [[nodiscard]] std::size_t core_of(std::size_t c) const noexcept { return c < self_ ? c : c + 1; }

  std::size_t self_;
  detail::xoshiro256ss rng_;
  std::vector<column> columns_;
};

// ---- discovery (cold; runs once per pool) ----

namespace detail::sysfs {

// Reads the first line of a sysfs file; empty if it cannot be read.
inline std::string read_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (in) {
    std::getline(in, line);
  }
  return line;
}

// Parses a CPU list such as "0-3,8,10-11". Returns false on anything else.
inline bool parse_cpu_list(const std::string& text, std::set<unsigned>& out) {
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
inline std::uint32_t group_label(const std::filesystem::path& file) {
  std::set<unsigned> cpus;
  if (!parse_cpu_list(read_line(file), cpus)) {
    return ~0U;
  }
  return *cpus.begin();
}

inline std::string format_cpu_list(const std::set<unsigned>& cpus) {
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

}  // namespace detail::sysfs

inline topology topology::from_sysfs(const std::filesystem::path& root, bool only_allowed_cpus) {
  namespace fs = std::filesystem;
  using namespace detail::sysfs;
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
    t.description_ +=
        t.is_uniform() ? "; all cores at distance 1 (uniform victims)" : "; Eq. 6 victim weights";
    return t;
  } catch (const std::exception& e) {
    return fallback(std::string("sysfs discovery failed: ") + e.what());
  }
}

#if defined(FJ_HAVE_HWLOC) && FJ_HAVE_HWLOC
inline std::optional<topology> topology::from_hwloc() {
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
  t.description_ += t.is_uniform() ? "; all cores at distance 1 (uniform victims)" : "; Eq. 6 victim weights";
  return t;
}
#endif

}  // namespace fj
