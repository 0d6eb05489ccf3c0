// Relacy model of the scans' chain (include/forkjoin/detail/algorithm/scan.hpp, chain_ctx;
// docs/protocols/scan.md): steps taken in index order with a fetch_add, each looking for or waiting for the
// carry into it and publishing the carry into the next one through a flag per step.
//
// A step's two passes over the elements are the element data, outside the protocol: step s holds the value
// s + 1, and its second pass records the carry it ran from. The carries are plain data (rl::var), so a carry
// read that the release/acquire pair does not order after its write is a data race, which Relacy reports.
//
// Checked in every execution: each step is run exactly once and from the right carry (the initial value plus
// the values of the steps before it); no data race on a carry; and, with a step that throws (its owner sets
// the stop flag and leaves without publishing), no waiter spins forever (Relacy reports a livelock when the
// only threads left yield without end). Every atomic operation of the protocol carries the `// model:`
// marker of its production twin (tests/model/drift_check.cpp); the stop flag's relaxed load and store
// (partition.hpp's stop_flag) are modelled as they are, without a site.

#include "model_support.hpp"

namespace {

using fj_model::ld;
using fj_model::rmw;
using fj_model::st;

constexpr int k_initial = 100;
constexpr int k_no_throw = -1;

template <int Threads, int Steps>
struct chain_suite : rl::test_suite<chain_suite<Threads, Steps>, Threads> {
  struct settings {
    int throwing_step = k_no_throw;  // the step whose owner throws in its first pass, if any
  };
  static inline settings config{};

  rl::atomic<int> next;
  rl::atomic<bool> ready[Steps];
  rl::var<int> carry[Steps];
  rl::atomic<bool> stop;
  int ran_from[Steps];  // the carry each step was scanned from, or -1 (Relacy runs one thread at a time)
  int runs[Steps];

  void before() {
    next.store(0, rl::mo_relaxed, RL_INFO);
    stop.store(false, rl::mo_relaxed, RL_INFO);
    for (int s = 0; s < Steps; ++s) {
      ready[s].store(false, rl::mo_relaxed, RL_INFO);
      ran_from[s] = -1;
      runs[s] = 0;
    }
    carry[0](RL_INFO) = k_initial;
    ready[0].store(true, st(rl::mo_relaxed, "scan.start"), RL_INFO);  // model: scan.start
  }

  int untaken() {
    const int taken = next.load(ld(rl::mo_relaxed, "scan.untaken"), RL_INFO);  // model: scan.untaken
    return taken < Steps ? Steps - taken : 0;
  }

  bool take(int& s) {
    if (untaken() == 0) return false;
    s = next.fetch_add(1, rmw(rl::mo_relaxed, "scan.take"), RL_INFO);  // model: scan.take
    return s < Steps;
  }

  // chain_ctx::wait_for: the pause and the yield are Relacy's yield.
  bool wait_for(int s) {
    while (!ready[s].load(ld(rl::mo_acquire, "scan.wait"), RL_INFO)) {  // model: scan.wait
      if (!fj_model::protocol_mutant("scan.wait.no_stop") && stop.load(rl::mo_relaxed, RL_INFO)) return false;
      rl::yield(1, RL_INFO);
    }
    return true;
  }

  void publish(int s, int value) {
    carry[s + 1](RL_INFO) = value;
    ready[s + 1].store(true, st(rl::mo_release, "scan.publish"), RL_INFO);  // model: scan.publish
  }

  // chain_ctx::catch_up, with stopping_on_throw's store of the stop flag where the first pass throws. The
  // first pass looks at the link once (chain_ctx::arrived): a carry found there is read at once, the rest of
  // the step scanned from it; otherwise the pass ends and the thread waits. Either way the carry is read
  // after an acquire load that saw the flag.
  void run(int s) {
    runs[s] += 1;
    if (s == config.throwing_step) {
      stop.store(true, rl::mo_relaxed, RL_INFO);
      return;
    }
    const int fold = s + 1;
    const bool came = ready[s].load(ld(rl::mo_acquire, "scan.peek"), RL_INFO);  // model: scan.peek
    if (!came && !wait_for(s)) return;
    const int c = carry[s](RL_INFO);
    if (s + 1 < Steps) publish(s, c + fold);
    ran_from[s] = c;
  }

  void thread(unsigned) {
    int s = 0;
    while (!stop.load(rl::mo_relaxed, RL_INFO) && take(s)) run(s);
  }

  void after() {
    int expected = k_initial;
    bool stopped = false;
    for (int s = 0; s < Steps; ++s) {
      if (s == config.throwing_step) stopped = true;
      if (!stopped) {
        RL_ASSERT(runs[s] == 1);
        RL_ASSERT(ran_from[s] == expected);
      } else {
        RL_ASSERT(runs[s] <= 1);
        RL_ASSERT(ran_from[s] == -1);  // nothing after the throw is scanned: its carry never comes
      }
      expected += s + 1;
    }
  }
};

template <class Suite>
fj_model::scenario make(const char* name, const char* description, unsigned threads,
                        rl::scheduler_type_e scheduler, rl::iteration_t iterations, unsigned bound,
                        int throwing_step) {
  typename Suite::settings config;
  config.throwing_step = throwing_step;
  return fj_model::suite_scenario<Suite>("production", name, description, threads, scheduler, iterations,
                                         bound, config);
}

}  // namespace

int main(int argc, char** argv) {
  using two = chain_suite<2, 3>;
  using three = chain_suite<3, 4>;
  std::vector<fj_model::scenario> scenarios;
  scenarios.push_back(
      make<two>("chain", "2 threads, 3 steps", 2, rl::fair_context_bound_scheduler_type, 0, 4, k_no_throw));
  scenarios.push_back(make<two>("throw", "2 threads, 3 steps, step 1 throws in its first pass", 2,
                                rl::fair_full_search_scheduler_type, 0, 0, 1));
  scenarios.push_back(make<three>("chain-3", "3 threads, 4 steps", 3, rl::fair_context_bound_scheduler_type,
                                  0, 2, k_no_throw));
  scenarios.push_back(make<three>("throw-3", "3 threads, 4 steps, step 1 throws in its first pass", 3,
                                  rl::fair_context_bound_scheduler_type, 0, 2, 1));
  scenarios.push_back(make<three>("chain-3-random", "3 threads, 4 steps", 3, rl::random_scheduler_type,
                                  100000, 0, k_no_throw));
  return fj_model::main_for("scan", std::move(scenarios), argc, argv);
}
