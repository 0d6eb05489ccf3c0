// fj::topology: building the compressed tree, distances and the paper's Eq. 6 victim weights
// (include/forkjoin/topology.hpp). Discovery of the real machine is src/discovery.cpp.

#include "forkjoin/topology.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "forkjoin/errors.hpp"

namespace fj {

topology topology::from_cores(std::vector<core> cores, std::string description) {
  return topology(std::move(cores), std::move(description));
}

topology topology::synthetic(const std::vector<std::size_t>& fanout) {
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

topology topology::uniform(std::size_t n, const std::string& why) {
  std::vector<core> cores(n);
  for (std::size_t i = 0; i < n; ++i) {
    cores[i].cpu = static_cast<unsigned>(i);
  }
  return topology(std::move(cores), "uniform (" + why + "): " + std::to_string(n) + " cores");
}

topology topology::subset(const std::vector<std::size_t>& indices) const {
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

std::uint32_t topology::distance(std::size_t i, std::size_t j) const {
  const std::vector<std::uint32_t>& a = chains_.at(i);
  const std::vector<std::uint32_t>& b = chains_.at(j);
  std::size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common]) {
    ++common;
  }
  return static_cast<std::uint32_t>(std::max(a.size(), b.size()) - common);
}

std::vector<double> topology::victim_weights(std::size_t i) const {
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

topology::topology(std::vector<core> cores, std::string description)
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

void topology::build_chains() {
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

void topology::describe_victims() {
  description_ += is_uniform() ? "; all cores at distance 1 (uniform victims)" : "; Eq. 6 victim weights";
}

}  // namespace fj
