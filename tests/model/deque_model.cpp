// Relacy model of the Chase-Lev deque (include/forkjoin/ext/deque.hpp, docs/protocols/deque.md) in its three
// modes: symmetric (the paper's seq_cst fences), asymmetric (compiler barrier in pop, membarrier in steal)
// and TSan (no fences, seq_cst accesses instead). In the asymmetric mode the compiler barrier is no fence at
// all and the membarrier is modelled as Linux defines it, a barrier in every other thread at some point
// during the call (model_support.hpp, membarrier()); so the model checks the asymmetric argument itself, not
// the symmetric one in its place.
//
// The class below follows the production code statement by statement. Every atomic operation and fence
// carries the `// model:` marker of its production twin; tests/model/drift_check.cpp fails the build when
// the two lines disagree on the operation or the memory order.
//
// Checked in every execution: each pushed item is taken exactly once (by a pop or a steal), a taken item has
// the value that was pushed, and the taker's read of the item's payload (a plain variable the owner wrote
// before pushing) is not a data race, i.e. the push happens before the take. Also the runtime's use of
// before_claim (docs/protocols/deque.md, "Reading the owner's state in a steal"): the owner publishes a new
// "stack" number after every pop that found the deque empty (as a worker changes stacks only then), and a
// thief reads it between its acquire of bottom and its CAS (worker_context.hpp's use_stack and stack_of); a
// successful steal must have read the number the owner had when it pushed the item.

#include <cstdint>

#include "model_support.hpp"

namespace {

using fj_model::ld;
using fj_model::rmw;
using fj_model::st;

enum class deque_mode { symmetric, asymmetric, tsan };

constexpr int k_max_items = 8;
constexpr int k_slot_storage = 1 + 2 + 4 + 8 + 16;

// A buffer of 2^k slots inside the suite's fixed storage (Relacy's atomics cannot live in vectors).
struct ring {
  std::int64_t mask = 0;
  rl::atomic<int>* slots = nullptr;
  rl::atomic<int>& at(std::int64_t i) const { return slots[i & mask]; }
};

struct steal_result {
  bool success;
  int value;
  int owner_stack;  // what before_claim read
};

// fj::deque<int>, member for member: top_, bottom_, ring_, owner_slots_, owner_mask_, owner_limit_.
class model_deque {
 public:
  void init(deque_mode mode, std::int64_t capacity) {
    asymmetric_ = mode == deque_mode::asymmetric;
    tsan_ = mode == deque_mode::tsan;
    top_.store(0, rl::mo_relaxed, RL_INFO);
    bottom_.store(0, rl::mo_relaxed, RL_INFO);
    claiming_.store(false, rl::mo_relaxed, RL_INFO);
    fenced_ = 0;
    fenced_successes_ = 0;
    int used = 0;
    std::int64_t cap = capacity;
    for (ring& r : rings_) {
      r.mask = cap - 1;
      r.slots = &storage_[used];
      // Value-initialised, as the production slots.
      for (std::int64_t i = 0; i < cap && used < k_slot_storage; ++i)
        storage_[used++].store(0, rl::mo_relaxed, RL_INFO);
      cap *= 2;
    }
    rings_used_ = 1;
    use_ring(&rings_[0]);
    owner_limit_ = owner_mask_ + 1;
  }

  void push(int value) {
    const std::int64_t b =
        bottom_.load(ld(rl::mo_relaxed, "deque.push.bottom"), RL_INFO);  // model: deque.push.bottom
    if (b >= owner_limit_) {
      push_at_limit(value, b);
      return;
    }
    publish(value, b);
  }

  void push_at_limit(int value, std::int64_t b) {
    const std::int64_t t = top_.load(ld(rl::mo_acquire, "deque.push.top"), RL_INFO);  // model: deque.push.top
    if (b - t > owner_mask_) {
      grow_and_push(value, t, b);
      return;
    }
    owner_limit_ = t + owner_mask_ + 1;
    publish(value, b);
  }

  void publish(int value, std::int64_t b) {
    owner_slots_[b & owner_mask_].store(value, st(rl::mo_relaxed, "deque.publish.slot"),
                                        RL_INFO);  // model: deque.publish.slot
    if (tsan_) {
      bottom_.store(b + 1, st(rl::mo_release, "deque.publish.bottom.tsan"),
                    RL_INFO);  // model: deque.publish.bottom.tsan
    } else {
      fj_model::release_fence("deque.publish.fence");  // model: deque.publish.fence
      bottom_.store(b + 1, st(rl::mo_relaxed, "deque.publish.bottom"),
                    RL_INFO);  // model: deque.publish.bottom
    }
  }

  // Returns the item, or 0 for "nothing".
  int pop() {
    const std::int64_t b =
        bottom_.load(ld(rl::mo_relaxed, "deque.pop.bottom"), RL_INFO) - 1;  // model: deque.pop.bottom
    std::int64_t t = 0;
    if (tsan_) {
      bottom_.store(b, st(rl::mo_seq_cst, "deque.pop.reserve.tsan"),
                    RL_INFO);                                            // model: deque.pop.reserve.tsan
      t = top_.load(ld(rl::mo_seq_cst, "deque.pop.top.tsan"), RL_INFO);  // model: deque.pop.top.tsan
    } else {
      bottom_.store(b, st(rl::mo_relaxed, "deque.pop.reserve"), RL_INFO);  // model: deque.pop.reserve
      if (asymmetric_) {
        fj_model::compiler_fence("deque.pop.fence.asymmetric");  // model: deque.pop.fence.asymmetric
      } else {
        fj_model::seq_cst_fence("deque.pop.fence");  // model: deque.pop.fence
      }
      t = top_.load(ld(rl::mo_relaxed, "deque.pop.top"), RL_INFO);  // model: deque.pop.top
    }

    if (t < b) {
      return owner_slots_[b & owner_mask_].load(ld(rl::mo_relaxed, "deque.pop.slot"),
                                                RL_INFO);  // model: deque.pop.slot
    }
    if (t == b) {
      const int value = owner_slots_[b & owner_mask_].load(ld(rl::mo_relaxed, "deque.pop.last.slot"),
                                                           RL_INFO);  // model: deque.pop.last.slot
      const bool won = top_.compare_exchange_strong(t, t + 1, rmw(rl::mo_seq_cst, "deque.pop.cas"), RL_INFO,
                                                    rl::mo_acquire, RL_INFO);  // model: deque.pop.cas
      restore_bottom(b + 1);
      return won ? value : 0;
    }
    restore_bottom(b + 1);
    if (!tsan_) {
      fj_model::acquire_fence("deque.pop.empty.fence");  // model: deque.pop.empty.fence
    }
    return 0;
  }

  void restore_bottom(std::int64_t b) {
    if (tsan_) {
      bottom_.store(b, st(rl::mo_seq_cst, "deque.restore.bottom.tsan"),
                    RL_INFO);  // model: deque.restore.bottom.tsan
    } else {
      bottom_.store(b, st(rl::mo_relaxed, "deque.restore.bottom"), RL_INFO);  // model: deque.restore.bottom
    }
  }

  // `owner_stack`: the owner's published stack number, read where production's before_claim runs.
  steal_result steal(rl::atomic<int>& owner_stack) {
    std::int64_t t = 0;
    std::int64_t b = 0;
    if (tsan_) {
      t = top_.load(ld(rl::mo_seq_cst, "deque.steal.top.tsan"), RL_INFO);  // model: deque.steal.top.tsan
      b = bottom_.load(ld(rl::mo_seq_cst, "deque.steal.bottom.tsan"),
                       RL_INFO);  // model: deque.steal.bottom.tsan
    } else if (asymmetric_) {
      return steal_asymmetric(owner_stack);
    } else {
      t = top_.load(ld(rl::mo_acquire, "deque.steal.top"), RL_INFO);        // model: deque.steal.top
      fj_model::seq_cst_fence("deque.steal.fence");                         // model: deque.steal.fence
      b = bottom_.load(ld(rl::mo_acquire, "deque.steal.bottom"), RL_INFO);  // model: deque.steal.bottom
    }
    return claim(t, b, owner_stack);
  }

  // The hint load of the token is left out: it only skips the exchange.
  steal_result steal_asymmetric(rl::atomic<int>& owner_stack) {
    std::int64_t t = top_.load(ld(rl::mo_acquire, "deque.steal.top.asymmetric"),
                               RL_INFO);  // model: deque.steal.top.asymmetric
    if (t >= bottom_.load(ld(rl::mo_acquire, "deque.steal.peek.asymmetric"),
                          RL_INFO)) {  // model: deque.steal.peek.asymmetric
      return {false, 0, 0};
    }
    if (claiming_.exchange(true, rmw(rl::mo_acquire, "deque.steal.token.take"),
                           RL_INFO)) {  // model: deque.steal.token.take
      return {false, 0, 0};
    }
    t = top_.load(ld(rl::mo_acquire, "deque.steal.retop.asymmetric"),
                  RL_INFO);  // model: deque.steal.retop.asymmetric
    if (t >= bottom_.load(ld(rl::mo_acquire, "deque.steal.repeek.asymmetric"),
                          RL_INFO)) {  // model: deque.steal.repeek.asymmetric
      if (!fj_model::protocol_mutant("deque.steal.token.kept_when_empty")) give_back_token();
      return {false, 0, 0};
    }
    // Production interrupts only the owner's core when the owner is bound, as in a pool (cpu_fence.hpp);
    // the model takes that weaker case, a barrier in the owner (thread 0) alone.
    fj_model::process_wide_fence("deque.steal.fence.asymmetric", 0);  // model: deque.steal.fence.asymmetric
    const std::int64_t b = bottom_.load(ld(rl::mo_acquire, "deque.steal.bottom.asymmetric"),
                                        RL_INFO);  // model: deque.steal.bottom.asymmetric
    const steal_result result = claim(t, b, owner_stack);
    give_back_token();
    fenced_ += 1;
    if (result.success) fenced_successes_ += 1;
    return result;
  }

  void give_back_token() {
    claiming_.store(false, st(rl::mo_release, "deque.steal.token.give"),
                    RL_INFO);  // model: deque.steal.token.give
  }

  steal_result claim(std::int64_t t, std::int64_t b, rl::atomic<int>& owner_stack) {
    if (t >= b) return {false, 0, 0};
    const ring* r = ring_.load(ld(rl::mo_acquire, "deque.steal.ring"), RL_INFO);  // model: deque.steal.ring
    const int value =
        r->at(t).load(ld(rl::mo_relaxed, "deque.steal.slot"), RL_INFO);  // model: deque.steal.slot
    const int stack =
        owner_stack.load(ld(rl::mo_relaxed, "worker.stack.read"), RL_INFO);  // model: worker.stack.read
    if (!top_.compare_exchange_strong(t, t + 1, rmw(rl::mo_seq_cst, "deque.steal.cas"), RL_INFO,
                                      rl::mo_relaxed,
                                      RL_INFO)) {  // model: deque.steal.cas
      return {false, 0, 0};
    }
    return {true, value, stack};
  }

  // Asymmetric mode: the token is free once every thief has returned.
  bool token_free() { return !claiming_.load(rl::mo_relaxed, RL_INFO); }
  int fenced() const { return fenced_; }
  int fenced_successes() const { return fenced_successes_; }

  void grow_and_push(int value, std::int64_t t, std::int64_t b) {
    ring* bigger = &rings_[rings_used_++];
    RL_ASSERT(bigger->mask == 2 * (owner_mask_ + 1) - 1);
    for (std::int64_t i = t; i < b; ++i) {
      const int item = owner_slots_[i & owner_mask_].load(ld(rl::mo_relaxed, "deque.grow.load"),
                                                          RL_INFO);                // model: deque.grow.load
      bigger->at(i).store(item, st(rl::mo_relaxed, "deque.grow.store"), RL_INFO);  // model: deque.grow.store
    }
    use_ring(bigger);
    owner_limit_ = t + owner_mask_ + 1;
    publish(value, b);
  }

  void use_ring(ring* r) {
    owner_slots_ = r->slots;
    owner_mask_ = r->mask;
    ring_.store(r, st(rl::mo_release, "deque.use_ring"), RL_INFO);  // model: deque.use_ring
  }

 private:
  rl::atomic<std::int64_t> top_;
  rl::atomic<std::int64_t> bottom_;
  rl::atomic<ring*> ring_;
  rl::atomic<int>* owner_slots_ = nullptr;
  std::int64_t owner_mask_ = 0;
  std::int64_t owner_limit_ = 0;
  rl::atomic<bool> claiming_;
  int fenced_ = 0;            // membarriers issued (asymmetric mode)
  int fenced_successes_ = 0;  // of those, followed by a successful claim
  bool asymmetric_ = false;
  bool tsan_ = false;
  ring rings_[5];
  int rings_used_ = 0;
  rl::atomic<int> storage_[k_slot_storage];
};

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
        if (const steal_result r = d.steal(owner_stack); r.success) {
          take(r.value);
          // Neither older than the push (the acquire of bottom) nor newer than the owner's next empty pop
          // (the failed pop's acquire of our CAS).
          RL_ASSERT(r.owner_stack == pushed_on[r.value](RL_INFO));
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
