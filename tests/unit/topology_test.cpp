// fj::topology and fj::detail::victim_sampler: distances and Eq. 6 weights on synthetic and hand-built trees,
// checked against hand-computed values; the sampler's frequencies against the weights; discovery on this
// machine.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "forkjoin/detail/victim_choice.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/topology.hpp"
#include "support/test_config.hpp"

namespace {

using fj::topology;
using fj::detail::victim_sampler;

double sum(const std::vector<double>& w) { return std::accumulate(w.begin(), w.end(), 0.0); }

TEST(Topology, SyntheticTwoByTwoByFourHasSixteenCoresInTwoNumaNodes) {
  const topology t = topology::synthetic({2, 2, 4});
  EXPECT_EQ(t.size(), 16U);
  EXPECT_EQ(t.numa_nodes(), 2U);
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(t.numa_group(i), i / 8);
    EXPECT_EQ(t.cpu(i), i);
  }
  EXPECT_FALSE(t.is_uniform());
  EXPECT_FALSE(t.description().empty());
}

TEST(Topology, DistanceCountsLevelsUpToTheCommonAncestor) {
  const topology t = topology::synthetic({2, 2, 4});
  EXPECT_EQ(t.distance(0, 0), 0U);
  EXPECT_EQ(t.distance(0, 3), 1U);   // same L3
  EXPECT_EQ(t.distance(0, 4), 2U);   // same NUMA node, other L3
  EXPECT_EQ(t.distance(0, 8), 3U);   // other NUMA node
  EXPECT_EQ(t.distance(15, 8), 2U);  // symmetric placement in the other node
  for (std::size_t i = 0; i < 16; ++i) {
    for (std::size_t j = 0; j < 16; ++j) {
      EXPECT_EQ(t.distance(i, j), t.distance(j, i));
    }
  }
}

// From core 0 of 2x2x4: 3 cores at r=1, 4 at r=2, 8 at r=3. w = 1/(n r^2) gives 1/3, 1/16, 1/72; their sum
// over all 15 cores is 1 + 1/4 + 1/9 = 49/36, so the probabilities are 12/49, 9/196 and 1/98.
TEST(Topology, VictimWeightsOnTwoByTwoByFourMatchHandComputedValues) {
  const topology t = topology::synthetic({2, 2, 4});
  const std::vector<double> w = t.victim_weights(0);
  ASSERT_EQ(w.size(), 16U);
  EXPECT_EQ(w[0], 0.0);
  for (std::size_t j = 1; j < 4; ++j) {
    EXPECT_NEAR(w[j], 12.0 / 49.0, 1e-12) << j;
  }
  for (std::size_t j = 4; j < 8; ++j) {
    EXPECT_NEAR(w[j], 9.0 / 196.0, 1e-12) << j;
  }
  for (std::size_t j = 8; j < 16; ++j) {
    EXPECT_NEAR(w[j], 1.0 / 98.0, 1e-12) << j;
  }
}

TEST(Topology, VictimWeightsSumToOneForEveryCore) {
  for (const std::vector<std::size_t>& shape :
       std::vector<std::vector<std::size_t>>{{2}, {8}, {2, 4}, {2, 2, 4}, {4, 2, 2, 2}, {3, 1, 5}}) {
    const topology t = topology::synthetic(shape);
    for (std::size_t i = 0; i < t.size(); ++i) {
      const std::vector<double> w = t.victim_weights(i);
      EXPECT_NEAR(sum(w), 1.0, 1e-12) << t.description() << " core " << i;
      EXPECT_EQ(w[i], 0.0);
    }
  }
}

TEST(Topology, UniformTopologyGivesEveryOtherCoreTheSameWeight) {
  const topology t = topology::uniform(5, "test");
  EXPECT_TRUE(t.is_uniform());
  EXPECT_EQ(t.numa_nodes(), 1U);
  const std::vector<double> w = t.victim_weights(2);
  for (std::size_t j = 0; j < 5; ++j) {
    EXPECT_NEAR(w[j], j == 2 ? 0.0 : 0.25, 1e-12);
  }
  EXPECT_NE(t.description().find("uniform"), std::string::npos);
}

TEST(Topology, LevelsThatDoNotBranchDoNotCount) {
  // One NUMA node with one L3: the same as a flat machine.
  const topology flat = topology::synthetic({1, 1, 4});
  EXPECT_TRUE(flat.is_uniform());
  EXPECT_EQ(flat.distance(0, 3), 1U);
  // 2 nodes x 1 L3 x 3 cores: the L3 level is merged with its node.
  const topology t = topology::synthetic({2, 1, 3});
  EXPECT_EQ(t.distance(0, 2), 1U);
  EXPECT_EQ(t.distance(0, 3), 2U);
}

TEST(Topology, IrregularTreeTakesTheLargerDistanceToTheCommonAncestor) {
  // Node 0: one L3 with 4 cores (the L3 level does not branch). Node 1: two L3 groups of 2 cores.
  std::vector<topology::core> cores;
  cores.reserve(8);
  for (unsigned c = 0; c < 4; ++c) {
    cores.push_back({c, 0, {0, 0}});
  }
  for (unsigned c = 4; c < 8; ++c) {
    cores.push_back({c, 1, {1, c < 6 ? 0U : 1U}});
  }
  const topology t = topology::from_cores(cores, "irregular");
  EXPECT_EQ(t.distance(0, 1), 1U);
  EXPECT_EQ(t.distance(4, 5), 1U);
  EXPECT_EQ(t.distance(4, 6), 2U);
  // Core 0 is 2 levels below the machine (node merged with its L3), core 4 is 3 levels: r = max(2, 3).
  EXPECT_EQ(t.distance(0, 4), 3U);
  EXPECT_EQ(t.distance(4, 0), 3U);
  EXPECT_EQ(t.numa_nodes(), 2U);
  // From core 0: 3 cores at r=1 and 4 at r=3: weights 1/3 and 1/36, total 1 + 1/9 = 10/9.
  const std::vector<double> w = t.victim_weights(0);
  EXPECT_NEAR(w[1], 0.3, 1e-12);
  EXPECT_NEAR(w[4], 0.025, 1e-12);
}

TEST(Topology, SubsetRecompressesTheTree) {
  const topology t = topology::synthetic({2, 2, 4});
  const topology s = t.subset({0, 1, 8});
  ASSERT_EQ(s.size(), 3U);
  EXPECT_EQ(s.cpu(2), 8U);
  EXPECT_EQ(s.distance(0, 1), 1U);
  EXPECT_EQ(s.distance(0, 2), 2U);
  EXPECT_EQ(s.numa_nodes(), 2U);
}

TEST(Topology, InvalidShapesAreConfigurationErrors) {
  EXPECT_THROW((void)topology::synthetic({}), fj::invalid_config_error);
  EXPECT_THROW((void)topology::synthetic({2, 0}), fj::invalid_config_error);
  EXPECT_THROW((void)topology::from_cores({}, "none"), fj::invalid_config_error);
  EXPECT_THROW((void)topology::synthetic({4}).subset({4}), fj::invalid_config_error);
}

TEST(VictimSampler, NeverReturnsItself) {
  const topology t = topology::synthetic({2, 2, 4});
  for (std::size_t self = 0; self < t.size(); ++self) {
    victim_sampler pick(t, self, fj::test::seed() + self);
    for (int k = 0; k < 1000; ++k) {
      const std::size_t v = pick();
      ASSERT_NE(v, self);
      ASSERT_LT(v, t.size());
    }
  }
}

TEST(VictimSampler, SingleCoreReturnsItself) {
  const topology t = topology::uniform(1);
  victim_sampler pick(t, 0, fj::test::seed());
  EXPECT_EQ(pick(), 0U);
}

// Each frequency must lie within 5 standard deviations of its probability (a false failure about once in
// 10^6 per cell; the seed is fixed anyway).
void expect_frequencies_match(const topology& t, std::size_t self) {
  const std::uint64_t draws = fj::test::scaled(400'000, 50'000);
  victim_sampler pick(t, self, fj::test::seed() ^ (self * 0x9e37U));
  std::vector<std::uint64_t> hits(t.size(), 0);
  for (std::uint64_t k = 0; k < draws; ++k) {
    ++hits[pick()];
  }
  const std::vector<double> w = t.victim_weights(self);
  const auto n = static_cast<double>(draws);
  for (std::size_t j = 0; j < t.size(); ++j) {
    const double f = static_cast<double>(hits[j]) / n;
    const double sd = std::sqrt(w[j] * (1.0 - w[j]) / n);
    EXPECT_NEAR(f, w[j], 5.0 * sd + 1e-9) << t.description() << " self " << self << " victim " << j;
  }
}

TEST(VictimSampler, FrequenciesMatchTheWeightsOnTwoByTwoByFour) {
  const topology t = topology::synthetic({2, 2, 4});
  expect_frequencies_match(t, 0);
  expect_frequencies_match(t, 5);
  expect_frequencies_match(t, 15);
}

TEST(VictimSampler, FrequenciesMatchTheWeightsOnIrregularAndUniformTrees) {
  expect_frequencies_match(topology::synthetic({3, 1, 5}), 7);
  expect_frequencies_match(topology::synthetic({2, 3, 2, 2}), 0);
  expect_frequencies_match(topology::uniform(7), 3);
  expect_frequencies_match(topology::uniform(2), 1);
}

TEST(Topology, DiscoverFindsAtLeastOneCoreAndDescribesItself) {
  const topology t = topology::discover();
  std::printf("[topology] %s\n", t.description().c_str());
  ASSERT_GE(t.size(), 1U);
  EXPECT_FALSE(t.description().empty());
  EXPECT_GE(t.numa_nodes(), 1U);
  if (t.size() >= 2) {
    EXPECT_NEAR(sum(t.victim_weights(0)), 1.0, 1e-12);
  }
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_LT(t.numa_group(i), t.numa_nodes());
  }
}

// A fake sysfs for 2 NUMA nodes, each one package with one L3, 2 physical cores with 2 hardware threads each,
// L2 per physical core: cpus 0-3 on node 0, 4-7 on node 1, siblings (0,1), (2,3), (4,5), (6,7).
class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("fj_topology_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
             std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::remove_all(root_);
    write("cpu/online", "0-7");
    write("node/node0/cpulist", "0-3");
    write("node/node1/cpulist", "4-7");
    write("node/possible", "0-1");  // not a nodeN directory: must be ignored
    for (unsigned c = 0; c < 8; ++c) {
      const std::string cpu = "cpu/cpu" + std::to_string(c) + "/";
      const unsigned first_sibling = c & ~1U;
      const std::string siblings = std::to_string(first_sibling) + "-" + std::to_string(first_sibling + 1);
      const std::string package = c < 4 ? "0-3" : "4-7";
      write(cpu + "topology/physical_package_id", c < 4 ? "0" : "1");
      write(cpu + "topology/thread_siblings_list", siblings);
      cache(cpu + "cache/index0/", "1", "Data", siblings);
      cache(cpu + "cache/index1/", "1", "Instruction", siblings);
      cache(cpu + "cache/index2/", "2", "Unified", siblings);
      cache(cpu + "cache/index3/", "3", "Unified", package);
    }
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void write(const std::string& file, const std::string& line) {
    const std::filesystem::path p = root_ / file;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << line << "\n";
  }
  void cache(const std::string& dir, const char* level, const char* type, const std::string& shared) {
    write(dir + "level", level);
    write(dir + "type", type);
    write(dir + "shared_cpu_list", shared);
  }

  std::filesystem::path root_;
};

TEST_F(FakeSysfs, TwoNodeMachineGivesTheSameDistancesAsTheSyntheticTree) {
  const topology t = topology::from_sysfs(root_);
  ASSERT_EQ(t.size(), 8U);
  EXPECT_EQ(t.numa_nodes(), 2U);
  const topology expected = topology::synthetic({2, 2, 2});
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(t.cpu(i), i);
    EXPECT_EQ(t.numa_group(i), i / 4);
    for (std::size_t j = 0; j < 8; ++j) {
      EXPECT_EQ(t.distance(i, j), expected.distance(i, j)) << i << " " << j;
    }
  }
  EXPECT_EQ(
      t.description(),
      "sysfs: 8 cores (cpus 0-7), 2 NUMA nodes, 2 packages, 2 L3 groups, 4 L2 groups, 4 physical cores; "
      "Eq. 6 victim weights");
}

TEST_F(FakeSysfs, OfflineCpusAreLeftOut) {
  write("cpu/online", "0-2,4");
  const topology t = topology::from_sysfs(root_);
  ASSERT_EQ(t.size(), 4U);
  EXPECT_EQ(t.cpu(3), 4U);
  EXPECT_NE(t.description().find("(cpus 0-2,4)"), std::string::npos) << t.description();
}

TEST(Topology, MissingSysfsFallsBackToUniformAndSaysSo) {
  const topology t = topology::from_sysfs("/nonexistent/fj/sysfs");
  EXPECT_GE(t.size(), 1U);
  EXPECT_TRUE(t.is_uniform());
  EXPECT_NE(t.description().find("uniform"), std::string::npos) << t.description();
  EXPECT_NE(t.description().find("not readable"), std::string::npos) << t.description();
}

}  // namespace

#if defined(FJ_HAVE_HWLOC) && FJ_HAVE_HWLOC
namespace {

TEST(TopologyHwloc, DiscoveryUsesHwlocAndAgreesWithSysfsOnTheCoreCount) {
  const fj::topology found = fj::topology::discover();
  EXPECT_EQ(found.description().rfind("hwloc:", 0), 0U) << found.description();
  const fj::topology sysfs = fj::topology::from_sysfs("/sys/devices/system", true);
  EXPECT_EQ(found.size(), sysfs.size()) << found.description() << " / " << sysfs.description();
  std::set<unsigned> cpus;
  for (std::size_t i = 0; i < found.size(); ++i) cpus.insert(found.cpu(i));
  EXPECT_EQ(cpus.size(), found.size()) << "every processing unit appears once";
  EXPECT_EQ(found.numa_nodes(), sysfs.numa_nodes());
}

}  // namespace
#endif
