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
//  - discover() asks hwloc when forkjoin was built with it, and otherwise reads Linux sysfs itself; where
//    neither works it falls back to a flat (uniform) tree. description() says which happened.
//
// This header holds the interface only: building a tree, discovery (sysfs, hwloc) and the weights are
// compiled into the library (src/topology.cpp, src/discovery.cpp), so that including a pool does not pull in
// the file-system and container headers they need. Drawing victims from the weights is
// detail/victim_choice.hpp.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
  static topology from_cores(std::vector<core> cores, std::string description);

  // A regular tree for tests: fanout lists the children of each node from the machine down, the last entry
  // being cores per lowest group. With two or more entries the machine's children are the NUMA nodes:
  // synthetic({2, 2, 4}) is 2 NUMA nodes x 2 L3 groups x 4 cores (16 cores); synthetic({8}) is one node of
  // 8 cores. Cores are numbered depth first, CPU numbers equal to their index.
  static topology synthetic(const std::vector<std::size_t>& fanout);

  // n cores, every pair at distance 1 (uniform victim selection), one NUMA node. `why` goes into
  // description().
  static topology uniform(std::size_t n, const std::string& why = "flat");

  // This machine's CPUs that the calling thread may run on: from hwloc when forkjoin was built with it
  // (the CMake option FJ_WITH_HWLOC), else from Linux sysfs. Falls back to uniform(hardware_concurrency)
  // when neither works; description() says which happened. Never throws.
  static topology discover();

  // The topology as hwloc sees it (processing units the process may use, their ancestors, NUMA nodes), or
  // nothing if hwloc fails or forkjoin was built without it.
  static std::optional<topology> from_hwloc();

  // The topology described by a sysfs tree at `root` (normally /sys/devices/system: root/cpu/online,
  // root/cpu/cpuN/{topology,cache}, root/node/nodeM/cpulist), for tests with a fake tree. With
  // only_allowed_cpus, CPUs outside the calling thread's affinity mask are left out.
  static topology from_sysfs(const std::string& root, bool only_allowed_cpus = false);

  // The same machine restricted to the given cores (indices into this topology, in the new worker order),
  // with the tree recompressed. For a pool with fewer workers than cores. Throws fj::invalid_config_error on
  // an empty list or an index out of range.
  [[nodiscard]] topology subset(const std::vector<std::size_t>& indices) const;

  [[nodiscard]] std::size_t size() const noexcept { return cores_.size(); }
  [[nodiscard]] const core& at(std::size_t i) const { return cores_.at(i); }
  [[nodiscard]] unsigned cpu(std::size_t i) const { return cores_.at(i).cpu; }

  // NUMA nodes renumbered densely 0..numa_nodes()-1 in order of first appearance: the lazy pool's groups.
  [[nodiscard]] std::size_t numa_nodes() const noexcept { return numa_count_; }
  [[nodiscard]] std::size_t numa_group(std::size_t i) const { return numa_group_.at(i); }

  // Topological distance between cores i and j (0 iff i == j), in the compressed tree.
  [[nodiscard]] std::uint32_t distance(std::size_t i, std::size_t j) const;

  // Eq. 6 normalised: entry j is the probability that core i picks victim j; entry i is 0. The entries sum to
  // 1 (up to rounding) when size() >= 2; for a single core the one entry is 0.
  [[nodiscard]] std::vector<double> victim_weights(std::size_t i) const;

  // True when every pair of distinct cores is at the same distance, so victim selection is uniform.
  [[nodiscard]] bool is_uniform() const noexcept { return uniform_; }

  // One line: where the tree came from and what it holds, e.g.
  // "sysfs: 2 cores (cpus 0-1), 1 NUMA node, 1 package, 1 L3 group, 2 L2 groups, 2 physical cores; all cores
  // at distance 1 (uniform victims)", or "uniform (sysfs not readable (...); all cores at distance 1): 2
  // cores".
  [[nodiscard]] const std::string& description() const noexcept { return description_; }

 private:
  topology(std::vector<core> cores, std::string description);

  // Builds the tree (root = node 0, one leaf per core), then stores for each core the chain of node ids from
  // the root to its leaf, leaving out the nodes with a single child.
  void build_chains();

  // Appends what victim selection will do ("; all cores at distance 1 ..." or "; Eq. 6 ...") to
  // description(): for the discovered topologies.
  void describe_victims();

  std::vector<core> cores_;
  std::string description_;
  std::vector<std::vector<std::uint32_t>> chains_;  // compressed root-to-leaf node ids, per core
  std::vector<std::size_t> numa_group_;
  std::size_t numa_count_ = 0;
  bool uniform_ = true;
};

}  // namespace fj
