#pragma once
// Relacy model of the Chase-Lev deque (include/forkjoin/ext/deque.hpp, docs/protocols/deque.md), shared by
// the deque model (deque_model.cpp) and the plain-spawn model (spawn_model.cpp), in its three modes:
// symmetric (the paper's seq_cst fences), asymmetric (compiler barrier in pop, membarrier in steal) and TSan
// (no fences, seq_cst accesses instead). In the asymmetric mode the compiler barrier is no fence at all and
// the membarrier is modelled as Linux defines it (model_support.hpp, membarrier()).
//
// The class follows the production code statement by statement. Every atomic operation and fence carries the
// `// model:` marker of its production twin; tests/model/drift_check.cpp fails the build when the two lines
// disagree on the operation or the memory order.

#include <cstdint>

#include "model_support.hpp"

namespace fj_model {

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
  bool declined = false;  // steal_if: the test refused the item (steal_status::declined)
};

// fj::deque<int>, member for member: top_, bottom_, ring_, owner_slots_, owner_mask_, owner_limit_.
class model_deque {
 public:
  // `owner_thread`: the Relacy thread that owns the deque, the one whose core a bound owner's membarrier
  // interrupts.
  void init(deque_mode mode, std::int64_t capacity, int owner_thread = 0) {
    owner_thread_ = owner_thread;
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

  // steal(before_claim) and steal_if(accept) in one, as in production: `before_claim(t)` runs between the
  // acquire of bottom and the CAS, with the index of the item about to be claimed, and returns whether to
  // claim it (false: declined, nothing taken).
  template <class BeforeClaim>
  steal_result steal(BeforeClaim& before_claim) {
    std::int64_t t = 0;
    std::int64_t b = 0;
    if (tsan_) {
      t = top_.load(ld(rl::mo_seq_cst, "deque.steal.top.tsan"), RL_INFO);  // model: deque.steal.top.tsan
      b = bottom_.load(ld(rl::mo_seq_cst, "deque.steal.bottom.tsan"),
                       RL_INFO);  // model: deque.steal.bottom.tsan
    } else if (asymmetric_) {
      return steal_asymmetric(before_claim);
    } else {
      t = top_.load(ld(rl::mo_acquire, "deque.steal.top"), RL_INFO);        // model: deque.steal.top
      fj_model::seq_cst_fence("deque.steal.fence");                         // model: deque.steal.fence
      b = bottom_.load(ld(rl::mo_acquire, "deque.steal.bottom"), RL_INFO);  // model: deque.steal.bottom
    }
    return claim(t, b, before_claim);
  }

  // The hint load of the token is left out: it only skips the exchange.
  template <class BeforeClaim>
  steal_result steal_asymmetric(BeforeClaim& before_claim) {
    std::int64_t t = top_.load(ld(rl::mo_acquire, "deque.steal.top.asymmetric"),
                               RL_INFO);  // model: deque.steal.top.asymmetric
    if (t >= bottom_.load(ld(rl::mo_acquire, "deque.steal.peek.asymmetric"),
                          RL_INFO)) {  // model: deque.steal.peek.asymmetric
      return {false, 0};
    }
    if (claiming_.exchange(true, rmw(rl::mo_acquire, "deque.steal.token.take"),
                           RL_INFO)) {  // model: deque.steal.token.take
      return {false, 0};
    }
    t = top_.load(ld(rl::mo_acquire, "deque.steal.retop.asymmetric"),
                  RL_INFO);  // model: deque.steal.retop.asymmetric
    if (t >= bottom_.load(ld(rl::mo_acquire, "deque.steal.repeek.asymmetric"),
                          RL_INFO)) {  // model: deque.steal.repeek.asymmetric
      if (!fj_model::protocol_mutant("deque.steal.token.kept_when_empty")) give_back_token();
      return {false, 0};
    }
    // Production interrupts only the owner's core when the owner is bound, as in a pool (cpu_fence.hpp);
    // the model takes that weaker case, a barrier in the owner alone.
    fj_model::process_wide_fence("deque.steal.fence.asymmetric",
                                 owner_thread_);  // model: deque.steal.fence.asymmetric
    const std::int64_t b = bottom_.load(ld(rl::mo_acquire, "deque.steal.bottom.asymmetric"),
                                        RL_INFO);  // model: deque.steal.bottom.asymmetric
    const steal_result result = claim(t, b, before_claim);
    give_back_token();
    fenced_ += 1;
    if (result.success) fenced_successes_ += 1;
    return result;
  }

  void give_back_token() {
    claiming_.store(false, st(rl::mo_release, "deque.steal.token.give"),
                    RL_INFO);  // model: deque.steal.token.give
  }

  template <class BeforeClaim>
  steal_result claim(std::int64_t t, std::int64_t b, BeforeClaim& before_claim) {
    if (t >= b) return {false, 0};
    const ring* r = ring_.load(ld(rl::mo_acquire, "deque.steal.ring"), RL_INFO);  // model: deque.steal.ring
    const int value =
        r->at(t).load(ld(rl::mo_relaxed, "deque.steal.slot"), RL_INFO);  // model: deque.steal.slot
    if (!before_claim(t)) return {false, 0, true};
    if (!top_.compare_exchange_strong(t, t + 1, rmw(rl::mo_seq_cst, "deque.steal.cas"), RL_INFO,
                                      rl::mo_relaxed,
                                      RL_INFO)) {  // model: deque.steal.cas
      return {false, 0};
    }
    return {true, value};
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

  // deque_owner::next_index(): the owner's own bottom (production's load is relaxed and marked "none").
  std::int64_t next_index() { return bottom_.load(rl::mo_relaxed, RL_INFO); }

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
  int owner_thread_ = 0;
  ring rings_[5];
  int rings_used_ = 0;
  rl::atomic<int> storage_[k_slot_storage];
};

}  // namespace fj_model
