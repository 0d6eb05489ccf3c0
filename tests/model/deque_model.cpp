// Relacy model of the Chase-Lev deque (include/forkjoin/ext/deque.hpp, docs/protocols/deque.md) in its three
// modes: symmetric (the paper's seq_cst fences), asymmetric (compiler barrier in pop, membarrier in steal)
// and TSan (no fences, seq_cst accesses instead). In the asymmetric mode the compiler barrier is no fence at
// all and the membarrier is modelled as Linux defines it, a barrier in every other thread at some point
// during the call (model_support.hpp, membarrier()); so the model checks the asymmetric argument itself, not
// the symmetric one in its place.
//
// The deque class (model_deque.hpp, shared with the plain-spawn model) follows the production code statement
// by statement. Every atomic operation and fence carries the `// model:` marker of its production twin;
// tests/model/drift_check.cpp fails the build when the two lines disagree on the operation or the memory
// order.
//
// Checked in every execution: each pushed item is taken exactly once (by a pop or a steal), a taken item has
// the value that was pushed, and the taker's read of the item's payload (a plain variable the owner wrote
// before pushing) is not a data race, i.e. the push happens before the take. Also the runtime's use of
// before_claim (docs/protocols/deque.md, "Reading the owner's state in a steal"): the owner publishes a new
// "stack" number after every pop that found the deque empty (as a worker changes stacks only then), and a
// thief reads it between its acquire of bottom and its CAS (worker_context.hpp's use_stack and stack_of); a
// successful steal must have read the number the owner had when it pushed the item.

#include <cstdint>

#include "model_deque.hpp"

namespace {

using fj_model::deque_mode;
using fj_model::k_max_items;
using fj_model::model_deque;
using fj_model::st;
using fj_model::steal_result;

// A scenario: the owner runs `owner_script` ('p' push the next item, 'P' pop), then pops until the deque is
// empty (after the thieves have finished, if `owner_waits`); each of the other threads tries `steals`
// steals.
struct deque_scenario {
  deque_mode mode;
  std::int64_t capacity;
  const char* owner_script;
  int steals;
  bool owner_waits;
};

template <int Threads>
struct deque_suite : rl::test_suite<deque_suite<Threads>, Threads> {
  static deque_scenario config;

  model_deque d;
  rl::var<int> payload[k_max_items + 1];
  rl::var<int> pushed_on[k_max_items + 1];  // the owner's stack number when it pushed the item
  int taken[k_max_items + 1];
  int pushed;
  rl::atomic<int> owner_stack;  // worker_context::stack
  int stack_number;             // the owner's own copy

  void before() {
    fj_model::membarrier_reset(config.mode == deque_mode::asymmetric ? Threads : 0);
    d.init(config.mode, config.capacity);
    for (int& n : taken) n = 0;
    pushed = 0;
    stack_number = 1;
    owner_stack.store(stack_number, rl::mo_relaxed, RL_INFO);
  }

  // The owner found its deque empty: like a worker that changes stacks then (use_stack).
  void owner_changes_stack() {
    ++stack_number;
    owner_stack.store(stack_number, st(rl::mo_relaxed, "worker.stack.publish"),
                      RL_INFO);  // model: worker.stack.publish
  }

  void take(int value) {
    RL_ASSERT(value >= 1 && value <= k_max_items);
    // A data race here means the push did not happen before the take.
    RL_ASSERT(payload[value](RL_INFO) == 10 * value);
    taken[value] += 1;
    RL_ASSERT(taken[value] == 1);
  }

  void thread(unsigned index) {
    if (index == 0) {
      for (const char* op = config.owner_script; *op != '\0'; ++op) {
        if (*op == 'p') {
          const int value = ++pushed;
          payload[value](RL_INFO) = 10 * value;
          pushed_on[value](RL_INFO) = stack_number;
          d.push(value);
        } else if (const int value = d.pop(); value != 0) {
          take(value);
        } else {
          owner_changes_stack();
        }
      }
      if (!config.owner_waits) {
        for (int value = d.pop(); value != 0; value = d.pop()) take(value);
      }
    } else {
      for (int i = 0; i < config.steals; ++i) {
        int stack = 0;  // what before_claim read: worker_context.hpp's stack_of
        auto read_stack = [&](std::int64_t) {
          stack = owner_stack.load(fj_model::ld(rl::mo_relaxed, "worker.stack.read"),
                                   RL_INFO);  // model: worker.stack.read
          return true;
        };
        if (const steal_result r = d.steal(read_stack); r.success) {
          take(r.value);
          // Neither older than the push (the acquire of bottom) nor newer than the owner's next empty pop
          // (the failed pop's acquire of our CAS).
          RL_ASSERT(stack == pushed_on[r.value](RL_INFO));
        }
      }
    }
    // A thread that ends passes through a context switch: a full barrier, and no membarrier waits for it.
    fj_model::membarrier_thread_exit();
  }

  void after() {
    // Asymmetric mode: every thief gave the token back, and a membarrier not followed by a successful claim
    // was spent on an item the owner took itself (docs/protocols/deque.md §"One heavy fence per steal").
    RL_ASSERT(d.token_free());
    if (config.owner_waits) {
      // No pop raced the thieves: every membarrier was followed by a successful claim. A wasted one could
      // only come from a holder that missed its predecessor's claim (the token's acquire and release).
      RL_ASSERT(d.fenced() == d.fenced_successes());
      for (int value = d.pop(); value != 0; value = d.pop()) take(value);
    }
    // The owner's final pops returned nothing, so every item was claimed: each exactly once.
    for (int value = 1; value <= pushed; ++value) RL_ASSERT(taken[value] == 1);
  }
};

template <int Threads>
deque_scenario deque_suite<Threads>::config{};

const char* mode_name(deque_mode m) {
  switch (m) {
    case deque_mode::symmetric: return "symmetric";
    case deque_mode::asymmetric: return "asymmetric";
    case deque_mode::tsan: return "tsan";
  }
  return "?";
}

template <int Threads>
fj_model::scenario make(deque_mode mode, const char* name, const char* description, std::int64_t capacity,
                        const char* script, int steals, rl::scheduler_type_e scheduler,
                        rl::iteration_t iterations, unsigned bound = 0, bool owner_waits = false) {
  return fj_model::suite_scenario<deque_suite<Threads>>(mode_name(mode), name, description, Threads,
                                                        scheduler, iterations, bound,
                                                        {mode, capacity, script, steals, owner_waits});
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fj_model::scenario> scenarios;
  for (deque_mode mode : {deque_mode::symmetric, deque_mode::asymmetric, deque_mode::tsan}) {
    // The asymmetric steal's extra loads (the token, the reloads) make the full search take minutes there.
    const bool full = mode != deque_mode::asymmetric;
    scenarios.push_back(make<2>(
        mode, "last-item", "owner: push, pop; 1 thief: 1 steal; capacity 2", 2, "pP", 1,
        full ? rl::fair_full_search_scheduler_type : rl::fair_context_bound_scheduler_type, 0, full ? 0 : 6));
    scenarios.push_back(make<2>(mode, "two-items",
                                "owner: push, push, pop, pop; 1 thief: 2 steals; capacity 2", 2, "ppPP", 2,
                                rl::fair_context_bound_scheduler_type, 0, 3));
    scenarios.push_back(make<2>(mode, "wrap",
                                "owner: push x2, pop, push x2, pop x3; 1 thief: 2 steals; capacity 2", 2,
                                "ppPppPPP", 2, rl::fair_context_bound_scheduler_type, 0, 3));
    scenarios.push_back(make<3>(mode, "two-thieves",
                                "owner: push x2, pops once the thieves are done; 2 thieves: 2 steals each; "
                                "capacity 2",
                                2, "pp", 2, rl::fair_context_bound_scheduler_type, 0, 2, true));
    scenarios.push_back(
        make<3>(mode, "grow",
                "owner: push x3 (grows 1->2->4), pop, push, pop x2; 2 thieves: 2 steals each; "
                "capacity 1",
                1, "pppPpPP", 2, rl::random_scheduler_type, 100000));
  }
  return fj_model::main_for("deque", std::move(scenarios), argc, argv);
}
