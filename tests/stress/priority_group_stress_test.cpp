// Stress for fj::priority_group (include/forkjoin/priority_group.hpp, docs/protocols/priority.md §10): random
// trees of priority spawns, every node counted and the total checked against a serial count of the same
// tree, at 1, 2, 3, 4, 8 and 16 workers (oversubscribed on purpose on small machines) on busy and lazy pools,
// with each storage. Roots are spawned from the waiting (ordinary) thread, so the outside index is exercised
// too; some leaves throw, and exactly one exception per round must reach wait() with the rest counted.
// Groups are made and destroyed while other groups of the same pool are busy (attach and detach under
// load), and lazy pools get pauses between rounds so that their workers fall asleep and must be woken by
// the priority pushes.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/mix.hpp"
#include "support/test_config.hpp"
#include "support/watchdog.hpp"

namespace {

using fj::test::mix;

// A node's children: 0..4 of them while depth remains, fewer near the bottom; a pure function of its id.
int children_of(std::uint64_t id, int depth) {
  if (depth == 0) return 0;
  return static_cast<int>(mix(id) % 5);
}
std::uint64_t child_id(std::uint64_t id, int i) { return mix(id * 31 + static_cast<std::uint64_t>(i) + 7); }
bool throws(std::uint64_t id) { return mix(id ^ 0xABCDULL) % 97 == 0; }

struct counts {
  std::uint64_t nodes = 0;
  std::uint64_t throwing = 0;
};

void serial_count(std::uint64_t id, int depth, counts& c) {
  ++c.nodes;
  int const n = children_of(id, depth);
  for (int i = 0; i < n; ++i) serial_count(child_id(id, i), depth - 1, c);
  if (throws(id)) ++c.throwing;
}

template <class Group>
struct tree_run {
  Group* g;
  std::atomic<std::uint64_t>* nodes;
};

template <class Group>
void node(const tree_run<Group>* run, std::uint64_t id, int depth) {
  run->nodes->fetch_add(1, std::memory_order_relaxed);
  int const n = children_of(id, depth);
  for (int i = 0; i < n; ++i) {
    std::uint64_t const c = child_id(id, i);
    // Priorities spread and repeated: ties are common, so the storages' tie-breaking is exercised.
    run->g->spawn(static_cast<double>(c % 64), node<Group>, run, c, depth - 1);
  }
  if (throws(id)) throw std::runtime_error("leaf " + std::to_string(id));
}

std::uint64_t dropped(const auto& pool) {
  std::uint64_t n = 0;
  for (const auto& s : pool.stats()) n += s.exceptions_dropped;
  return n;
}

template <class Group, class Pool>
void rounds(Pool& pool, int rounds_count, bool pause, fj::test::watchdog& dog, const std::string& name) {
  for (int r = 0; r < rounds_count; ++r) {
    auto watch =
        dog.watch(name + " round " + std::to_string(r), [&] { return fj::test::describe_pool(pool); });
    Group g(pool);
    std::atomic<std::uint64_t> nodes{0};
    tree_run<Group> const run{&g, &nodes};
    counts expected;
    int const roots = 3;
    int const depth = fj::test::tsan ? 6 : 8;
    std::uint64_t const dropped_before = dropped(pool);  // before the first task can throw
    for (int i = 0; i < roots; ++i) {
      std::uint64_t const id = fj::test::default_seed + static_cast<std::uint64_t>(r * roots + i);
      serial_count(id, depth, expected);
      g.spawn(static_cast<double>(i), node<Group>, &run, id, depth);
    }
    bool caught = false;
    try {
      g.wait();
    } catch (const std::runtime_error&) {
      caught = true;
    }
    EXPECT_EQ(nodes.load(), expected.nodes) << name << " round " << r;
    EXPECT_EQ(caught, expected.throwing > 0) << name << " round " << r;
    std::uint64_t const dropped_now = dropped(pool) - dropped_before;
    EXPECT_EQ(dropped_now + (caught ? 1 : 0), expected.throwing) << name << " round " << r;
    EXPECT_EQ(g.pending(), 0U);
    if (pause && r % 4 == 3) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

template <class Pool>
void all_storages(std::size_t workers, bool pause, fj::test::watchdog& dog) {
  Pool pool(workers);
  int const n = static_cast<int>(fj::test::scaled(16, 4));
  std::string const base =
      pool.description().substr(0, pool.description().find(':')) + " " + std::to_string(workers);
  rounds<fj::strict_priority_group>(pool, n, pause, dog, base + " strict");
  rounds<fj::relaxed_priority_group<1>>(pool, n, pause, dog, base + " relaxed k=1");
  rounds<fj::relaxed_priority_group<16>>(pool, n, pause, dog, base + " relaxed k=16");
  rounds<fj::no_priority_group>(pool, n, pause, dog, base + " none");
}

TEST(PriorityGroupStress, RandomTreesCountExactlyOnBusyPools) {
  fj::test::watchdog dog;
  for (std::size_t const w : {1U, 2U, 3U, 4U, 8U, 16U}) all_storages<fj::busy_pool>(w, false, dog);
}

TEST(PriorityGroupStress, RandomTreesCountExactlyOnLazyPools) {
  fj::test::watchdog dog;
  for (std::size_t const w : {1U, 2U, 3U, 4U, 8U, 16U}) all_storages<fj::lazy_pool>(w, true, dog);
}

// Several groups on one pool at once, each waited for by its own thread, made and destroyed while the
// others run.
TEST(PriorityGroupStress, GroupsComeAndGoWhileOthersRun) {
  fj::test::watchdog dog;
  fj::lazy_pool pool(4);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  threads.reserve(3);
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < static_cast<int>(fj::test::scaled(40, 4)); ++r) {
        fj::relaxed_priority_group<4> g(pool);
        std::atomic<std::uint64_t> nodes{0};
        tree_run<fj::relaxed_priority_group<4>> const run{&g, &nodes};
        std::uint64_t const id = (static_cast<std::uint64_t>(t) * 1000) + static_cast<std::uint64_t>(r);
        counts expected;
        serial_count(id, 5, expected);
        g.spawn(0.0, node<fj::relaxed_priority_group<4>>, &run, id, 5);
        bool caught = false;
        try {
          g.wait();
        } catch (const std::runtime_error&) {
          caught = true;  // a leaf threw: expected when the tree has throwing nodes
        }
        if (nodes.load() != expected.nodes || caught != (expected.throwing > 0)) failures.fetch_add(1);
      }
    });
  }
  auto watch = dog.watch("groups come and go", [&] { return fj::test::describe_pool(pool); });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// Spawns from an ordinary thread while the lazy workers are going to sleep: waits of varying length between
// rounds put the spawn at every point of a worker's way into sleep() (spinning, registering, re-checking,
// asleep). The spawner is no worker, so a lost wake-up strands the task and wait() never returns: the
// watchdog fires (sleep.md "The sleeper count"). Each round also reuses the group after wait().
template <class Group>
void spawns_while_falling_asleep(std::size_t workers, fj::test::watchdog& dog, const std::string& name) {
  // No linger: the workers go to sleep within the pauses below.
  fj::lazy_pool pool(fj::pool_options{.workers = workers, .linger = {}});
  Group g(pool);
  std::uint64_t x = fj::test::default_seed;
  int const rounds_count = static_cast<int>(fj::test::scaled(3000, 200));
  for (int r = 0; r < rounds_count; ++r) {
    auto watch =
        dog.watch(name + " round " + std::to_string(r), [&] { return fj::test::describe_pool(pool); });
    std::atomic<int> ran{0};
    g.spawn(static_cast<double>(r % 7), [&ran] { ran.fetch_add(1, std::memory_order_relaxed); });
    g.wait();
    EXPECT_EQ(ran.load(), 1) << name << " round " << r;
    // 0 to about 200 microseconds: the workers' spin before sleep() takes a few.
    x = mix(x);
    auto const until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(x % 200'000);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
}

TEST(PriorityGroupStress, OutsideSpawnsWakeWorkersThatAreFallingAsleep) {
  fj::test::watchdog dog;
  for (std::size_t const w : {1U, 2U, 4U}) {
    spawns_while_falling_asleep<fj::strict_priority_group>(w, dog, "strict " + std::to_string(w));
    spawns_while_falling_asleep<fj::relaxed_priority_group<16>>(w, dog, "relaxed k=16 " + std::to_string(w));
  }
}

}  // namespace
