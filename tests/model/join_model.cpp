// Relacy model of the split-counter join and its first-exception slot (include/forkjoin/detail/frame.hpp,
// join.hpp, detail/task_return.hpp; docs/protocols/join.md), in the production build (release fetch_sub plus
// an acquire fence in the child) and the TSan build (acq_rel fetch_sub, no fence).
//
// Thread 0 runs the parent's stolen continuation up to its join (explicit `co_await fj::join`, or the
// implicit join at its final suspend); threads 1..S are the S children that find their parent stolen when
// they return. Every atomic operation and fence carries the `// model:` marker of its production twin
// (tests/model/drift_check.cpp).
//
// Checked in every execution: the parent is continued exactly once, by the last of the S + 1 arrivals; the
// continuation sees the children's results, the parent's own state and the first exception without a data
// race (the frame's plain fields are rl::var, so a missing happens-before is reported); exactly one exception
// wins the slot and none is lost; finishing the frame (destroying it) races with no child.

#include <cstdint>

#include "model_support.hpp"

namespace {

using fj_model::ld;
using fj_model::rmw;
using fj_model::st;

constexpr std::uint32_t k_join_init = 0;  // as in frame.hpp
constexpr int k_max_children = 3;
constexpr int k_parent_exception = 100;

struct join_scenario {
  bool tsan;
  int children;
  bool at_final;          // the parent joins implicitly at its final suspend (and throws first)
  int throwing_children;  // children 1..n throw
};

// fj::detail::frame: the fields the join protocol touches.
struct frame_model {
  rl::atomic<std::uint32_t> joins;
  rl::var<std::uint32_t> steals;
  rl::var<bool> at_final;
  rl::atomic<bool> exception_claimed;
  rl::var<int> exception;                   // stands for the std::exception_ptr; 0 is "none"
  rl::var<int> local;                       // the parent's locals
  rl::var<int> result[k_max_children + 1];  // what each child writes through its out pointer
};

template <int Threads>
struct join_suite : rl::test_suite<join_suite<Threads>, Threads> {
  static join_scenario config;

  frame_model f;
  int continued;  // how many times the parent was continued (or finished)

  void before() {
    f.joins.store(k_join_init, rl::mo_relaxed, RL_INFO);
    f.exception_claimed.store(false, rl::mo_relaxed, RL_INFO);
    f.steals(RL_INFO) = 0;
    f.at_final(RL_INFO) = false;
    f.exception(RL_INFO) = 0;
    f.local(RL_INFO) = 0;
    for (rl::var<int>& r : f.result) r(RL_INFO) = 0;
    continued = 0;
  }

  // join.hpp deliver_exception
  void deliver_exception(int e) {
    if (fj_model::protocol_mutant("join.exception.claim.split")) {
      // Mutant: test, then set; two writers can both see "unclaimed".
      if (!f.exception_claimed.load(rl::mo_relaxed, RL_INFO)) {
        f.exception_claimed.store(true, rl::mo_relaxed, RL_INFO);
        f.exception(RL_INFO) = e;
      }
      return;
    }
    if (!f.exception_claimed.exchange(true, rmw(rl::mo_relaxed, "join.exception.claim"),
                                      RL_INFO)) {  // model: join.exception.claim
      f.exception(RL_INFO) = e;
    }
  }

  // join.hpp arrive_at_join (last: the join is reset there)
  bool arrive_at_join() {
    const std::uint32_t ours = k_join_init - f.steals(RL_INFO);
    if (f.joins.fetch_sub(ours, rmw(rl::mo_acq_rel, "join.parent.fetch_sub"), RL_INFO) ==
        ours) {  // model: join.parent.fetch_sub
      reset_join();
      return true;
    }
    return false;
  }

  // join.hpp stolen_join_is_ready (ready: the join is reset there)
  bool stolen_join_is_ready() {
    if (f.joins.load(ld(rl::mo_acquire, "join.ready.load"), RL_INFO) ==
        k_join_init - f.steals(RL_INFO)) {  // model: join.ready.load
      reset_join();
      return true;
    }
    return false;
  }

  bool join_is_ready() { return f.steals(RL_INFO) == 0 || stolen_join_is_ready(); }

  // join.hpp reset_join
  void reset_join() {
    f.steals(RL_INFO) = 0;
    f.joins.store(k_join_init, st(rl::mo_relaxed, "join.reset"), RL_INFO);  // model: join.reset
  }

  void check_continuation() {
    continued += 1;
    RL_ASSERT(continued == 1);
    RL_ASSERT(f.local(RL_INFO) == 42);
    for (int c = 1; c <= config.children; ++c) RL_ASSERT(f.result[c](RL_INFO) == c);
  }

  // join.hpp join_steps::resume (and rethrow)
  void resume_after_join() {
    check_continuation();
    const int e = f.exception(RL_INFO);
    if (config.throwing_children > 0) RL_ASSERT(e >= 11 && e < 11 + config.throwing_children);
    if (e != 0) {
      f.exception(RL_INFO) = 0;
      f.exception_claimed.store(false, st(rl::mo_relaxed, "join.exception.clear"),
                                RL_INFO);  // model: join.exception.clear
    }
  }

  // task_return.hpp finish: take the exception, destroy the frame.
  void finish() {
    check_continuation();
    const int e = f.exception(RL_INFO);
    RL_ASSERT(e == k_parent_exception || (e >= 11 && e < 11 + config.throwing_children));
    // Destroying the frame writes its memory: a child still touching it would race with this.
    f.local(RL_INFO) = 0;
    for (int c = 1; c <= config.children; ++c) f.result[c](RL_INFO) = 0;
    f.exception(RL_INFO) = 0;
  }

  // join.hpp resume_at_join: the last child resets the join before it resumes the parent.
  void resume_at_join() {
    if (f.at_final(RL_INFO)) {
      finish();
    } else {
      reset_join();
      resume_after_join();
    }
  }

  // task_return.hpp return_to_stolen_parent
  void return_to_stolen_parent() {
    const rl::memory_order child_order =
        config.tsan ? rmw(rl::mo_acq_rel, "join.child.order")
                    : rmw(rl::mo_release, "join.child.order");               // model: join.child.order
    if (f.joins.fetch_sub(1, child_order, RL_INFO) == 1) {                   // model: join.child.fetch_sub
      fj_model::acquire_fence_unless_tsan(config.tsan, "join.child.fence");  // model: join.child.fence
      resume_at_join();
    }
  }

  void thread(unsigned index) {
    if (index == 0) {
      // The thief that stole the continuation S times (once per child forked before each steal).
      f.steals(RL_INFO) = static_cast<std::uint32_t>(config.children);
      f.local(RL_INFO) = 42;
      if (config.at_final) {
        // final_slow: the body threw, then the implicit join.
        deliver_exception(k_parent_exception);
        f.at_final(RL_INFO) = true;
        if (join_is_ready() || arrive_at_join()) finish();
      } else if (join_is_ready() || arrive_at_join()) {
        resume_after_join();
      }
    } else {
      const int c = static_cast<int>(index);
      f.result[c](RL_INFO) = c;
      if (c <= config.throwing_children) deliver_exception(10 + c);
      return_to_stolen_parent();
    }
  }

  void after() { RL_ASSERT(continued == 1); }
};

template <int Threads>
join_scenario join_suite<Threads>::config{};

template <int Threads>
fj_model::scenario make(bool tsan, const char* name, const char* description, bool at_final, int throwing,
                        rl::scheduler_type_e scheduler, rl::iteration_t iterations, unsigned bound = 0) {
  return fj_model::suite_scenario<join_suite<Threads>>(tsan ? "tsan" : "production", name, description,
                                                       Threads, scheduler, iterations, bound,
                                                       {tsan, Threads - 1, at_final, throwing});
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fj_model::scenario> scenarios;
  for (bool tsan : {false, true}) {
    scenarios.push_back(make<2>(tsan, "one-child", "parent joins; 1 child returns (throws)", false, 1,
                                rl::fair_full_search_scheduler_type, 0));
    scenarios.push_back(make<3>(tsan, "two-children",
                                "parent joins; 2 children return, both throw (first-exception race)", false,
                                2, rl::fair_full_search_scheduler_type, 0));
    scenarios.push_back(make<4>(tsan, "three-children", "parent joins; 3 children return, 2 throw", false, 2,
                                rl::fair_full_search_scheduler_type, 0));
    scenarios.push_back(make<3>(tsan, "implicit-join",
                                "parent throws, joins at its final suspend; 2 children return, 1 throws",
                                true, 1, rl::fair_full_search_scheduler_type, 0));
  }
  return fj_model::main_for("join", std::move(scenarios), argc, argv);
}
