// Relacy model of the plain-spawn protocol (child stealing with fj::scope: include/forkjoin/scope.hpp,
// detail/spawn_record.hpp, detail/leapfrog.hpp; docs/protocols/spawn.md) on the Chase-Lev deque of
// model_deque.hpp (the `spawned` deque of each worker, with steal_if's accept test).
//
// Two workers, each a Relacy thread with its own deque. Thread 0 (the owner) opens a scope, spawns records
// onto its deque, and syncs: it pops back what it can, runs it, and for the records a thief took waits with
// the leapfrog rule (wait_for_stolen, take_back_from_thief). Thread 1 (the thief) steals from the owner's
// deque and runs what it took with run_taken_record: it publishes itself in the record's `runner`, runs the
// call, sets the done bit and increments the scope's stolen_done_. A call is a leaf (it writes its result, or
// throws) or a parent: it opens a nested scope on whichever worker runs it, spawns its children (leaves or
// parents in turn) onto that worker's deque, syncs them (popping back, or waiting for those the other worker
// took, with the same leapfrog rule) and rethrows the nested scope's first exception. The functions below
// follow the production code statement by statement; each atomic operation carries the `// model:` marker of
// its production twin (tests/model/drift_check.cpp).
//
// Checked in every execution:
//  (a) every record runs exactly once; when the owner's sync returns, every result (and the nested scope's
//      children's results, read by the parent's call after its own sync) is visible: results are plain
//      variables, so a write not ordered before the read is a data race; a record's memory is freed (its
//      plain fields written, its atomics then off limits) only after every other thread is done with it;
//  (b) a worker waiting at a sync takes back only items of the stolen call it waits for: never an item pushed
//      below the call's runner_base, never one pushed after the call returned (the "foreign" scenario pushes
//      one right after the done bit and the increment), and only records that descend from that call (the
//      checked builds' spawn-depth test);
//  (c) the exception slot: exactly one capture per scope and sync wins, the others are dropped, and the sync
//      rethrows the winner's exception (read without a data race).

#include <cstdint>

#include "model_deque.hpp"

namespace {

using fj_model::deque_mode;
using fj_model::ld;
using fj_model::model_deque;
using fj_model::rmw;
using fj_model::st;
using fj_model::steal_result;

constexpr int k_workers = 2;
constexpr int k_max_records = 6;  // record ids 1..5; 0 is "none" (and, as a scope, the owner's)
constexpr int k_foreign = 7;      // an item the thief pushes after the stolen call returned (no record)
constexpr int k_old = 8;          // an item the thief pushed before it stole (older work of its own)
constexpr std::uintptr_t k_runner_done = 1;

// spawn_record: what other threads touch. `scope` and `runner_base` are plain fields (rl::var); freeing the
// record writes them, so a thread still reading them races with the free.
struct record_model {
  rl::atomic<std::uintptr_t> runner;
  rl::var<std::int64_t> runner_base;
  rl::var<int> scope;
  int older = 0;  // owner only
  rl::var<int> result;
};

// scope_state
struct scope_model {
  int worker = 0;  // where the scope was opened
  int newest = 0;
  std::uint32_t stolen = 0;
  rl::atomic<std::uint32_t> stolen_done;
  rl::atomic<std::uint32_t> exception_claimed;
  rl::var<int> exception;  // stands for the std::exception_ptr; 0 is "none"
};

struct spawn_scenario {
  deque_mode mode;
  // parent[id] for the records 1..records (ids in spawn order): 0 for the owner's scope, else the record
  // whose call spawns it, in a scope of its own opened on the worker that runs that call.
  int parent[k_max_records];
  int records;
  unsigned throws;  // bit id: record id's call throws (after syncing its own children)
  int steals;       // the thief's steal attempts on the owner's deque
  bool foreign;     // after running a record, the thief pushes k_foreign and pops it back
  bool old_item;    // before stealing, the thief pushes k_old (popped back at the end)
  bool reuse;       // the owner syncs after each spawn (catching what the sync rethrows) and reuses the scope
};

struct spawn_suite : rl::test_suite<spawn_suite, k_workers> {
  static spawn_scenario config;

  model_deque spawned[k_workers];
  record_model rec[k_max_records];
  // 0: the owner's scope; id: the scope record id's call opens (if it has children)
  scope_model scopes[k_max_records];
  // detail::tls_scope of each worker: the scope a spawn there goes to; -1 for none (while a scope runs its
  // children, and outside any scope).
  int current[k_workers];
  // Plain bookkeeping of the checks (Relacy runs the threads one at a time).
  int ran[k_max_records];
  bool freed[k_max_records];
  int winner[k_max_records];  // the exception the claim's winner stored, per scope
  int winners[k_max_records];
  int dropped[k_max_records];
  int rethrown;  // what the owner's scope rethrew

  void before() {
    fj_model::membarrier_reset(config.mode == deque_mode::asymmetric ? k_workers : 0);
    for (int w = 0; w < k_workers; ++w) {
      spawned[w].init(config.mode, 2, w);
      current[w] = -1;
    }
    for (int id = 0; id < k_max_records; ++id) {
      rec[id].runner.store(0, rl::mo_relaxed, RL_INFO);
      rec[id].runner_base(RL_INFO) = 0;
      rec[id].scope(RL_INFO) = -1;
      rec[id].older = 0;
      rec[id].result(RL_INFO) = 0;
      ran[id] = 0;
      freed[id] = false;
    }
    for (scope_model& s : scopes) {
      s.worker = 0;
      s.newest = 0;
      s.stolen = 0;
      s.stolen_done.store(0, rl::mo_relaxed, RL_INFO);
      s.exception_claimed.store(0, rl::mo_relaxed, RL_INFO);
      s.exception(RL_INFO) = 0;
    }
    for (int s = 0; s < k_max_records; ++s) winner[s] = winners[s] = dropped[s] = 0;
    rethrown = 0;
  }

  static std::uintptr_t word_of(int worker) { return static_cast<std::uintptr_t>(worker + 1) << 1; }
  static int worker_of(std::uintptr_t word) { return static_cast<int>(word >> 1) - 1; }
  static int exception_of(int id) { return 10 + id; }
  bool throws(int id) const { return (config.throws >> id & 1U) != 0; }
  bool is_child(int id, int of) const { return id >= 1 && id <= config.records && config.parent[id] == of; }

  // The result a record's call returns when it does not throw: its own part and its children's.
  int value_of(int id) const {
    int sum = 100 * id;
    for (int c = 1; c <= config.records; ++c) {
      if (is_child(c, id)) sum += value_of(c);
    }
    return sum;
  }

  // Whether record id's call ends with an exception: its own, or its scope's first one, rethrown by its sync.
  bool ends_with_exception(int id) const { return throws(id) || throwers(id) > 0; }

  // How many of scope s's children end their call with an exception.
  int throwers(int s) const {
    int n = 0;
    for (int c = 1; c <= config.records; ++c) {
      if (is_child(c, s) && ends_with_exception(c)) ++n;
    }
    return n;
  }

  // The spawn-depth test of the checked builds (leapfrog.hpp): `item` descends from `r`.
  bool descends_from(int item, int r) const {
    if (item <= 0 || item > config.records) return false;
    for (int p = item; p > 0; p = config.parent[p]) {
      if (p == r) return true;
    }
    return false;
  }

  void free_record(int id) {
    RL_ASSERT(!freed[id]);
    freed[id] = true;
    rec[id].runner_base(RL_INFO) = -1;
    rec[id].scope(RL_INFO) = -1;
  }

  // ---- detail/spawn_record.hpp ----

  // scope_state::capture
  void capture(int s, int e) {
    scope_model& sc = scopes[s];
    if (fj_model::protocol_mutant("spawn.exception.claim.split")) {
      // Mutant: test, then set; two writers can both see "unclaimed".
      if (sc.exception_claimed.load(rl::mo_relaxed, RL_INFO) == 0) {
        sc.exception_claimed.store(1, rl::mo_relaxed, RL_INFO);
        winner[s] = e;
        winners[s] += 1;
        sc.exception(RL_INFO) = e;
      } else {
        dropped[s] += 1;
      }
      return;
    }
    if (sc.exception_claimed.exchange(1, rmw(rl::mo_relaxed, "spawn.exception.claim"), RL_INFO) ==
        0) {  // model: spawn.exception.claim
      winner[s] = e;
      winners[s] += 1;
      sc.exception(RL_INFO) = e;
    } else {
      dropped[s] += 1;
    }
  }

  // scope_state::stolen_finished
  void stolen_finished(int s) {
    scopes[s].stolen_done.fetch_add(1, rmw(rl::mo_release, "spawn.stolen_done.add"),
                                    RL_INFO);  // model: spawn.stolen_done.add
  }

  // run_taken_record
  void run_taken_record(int w, int id) {
    record_model& r = rec[id];
    const std::uintptr_t self = word_of(w);
    RL_ASSERT(!freed[id]);
    r.runner_base(RL_INFO) = spawned[w].next_index();
    r.runner.store(self, st(rl::mo_release, "spawn.runner.publish"), RL_INFO);  // model: spawn.runner.publish
    const int scope = r.scope(RL_INFO);
    run(w, id);
    RL_ASSERT(!freed[id]);
    r.runner.store(self | k_runner_done, st(rl::mo_release, "spawn.runner.done"),
                   RL_INFO);  // model: spawn.runner.done
    stolen_finished(scope);
  }

  // ---- scope.hpp: record_of::run_it and the call ----

  void run(int w, int id) {
    ran[id] += 1;
    RL_ASSERT(ran[id] == 1);
    const int scope = rec[id].scope(RL_INFO);
    const int e = call(w, id);
    if (e == 0) {
      rec[id].result(RL_INFO) = value_of(id);
    } else {
      capture(scope, e);
    }
  }

  // The spawned function: returns the exception it throws, 0 if none. With children:
  // fj::scope s; s.spawn(...) for each; s.sync(); (and the sync's rethrow propagates).
  int call(int w, int id) {
    bool has_children = false;
    for (int c = 1; c <= config.records; ++c) has_children = has_children || is_child(c, id);
    if (has_children) {
      scopes[id].worker = w;
      const int outer = current[w];
      current[w] = id;
      for (int c = 1; c <= config.records; ++c) {
        if (is_child(c, id)) spawn(id, c);
      }
      finish_children(id);
      current[w] = outer;
      if (scopes[id].exception(RL_INFO) != 0) return rethrow_first(id);
      for (int c = 1; c <= config.records; ++c) {
        if (is_child(c, id)) RL_ASSERT(rec[c].result(RL_INFO) == value_of(c));
      }
    }
    return throws(id) ? exception_of(id) : 0;
  }

  // scope::spawn_call (a worker, not serial elision; the push never fails here)
  void spawn(int s, int id) {
    scope_model& sc = scopes[s];
    RL_ASSERT(current[sc.worker] == s);  // else fj::scope_error
    rec[id].scope(RL_INFO) = s;
    rec[id].older = sc.newest;
    spawned[sc.worker].push(id);
    sc.newest = id;
  }

  // scope::finish_children, with the checked builds' identity test of the popped item
  void finish_children(int s) {
    scope_model& sc = scopes[s];
    if (sc.newest == 0) return;
    RL_ASSERT(current[sc.worker] == s);
    current[sc.worker] = -1;
    int r = sc.newest;
    do {
      const int popped = spawned[sc.worker].pop();
      if (popped == 0) break;  // thieves took r and the older ones
      RL_ASSERT(popped == r);
      const int older = rec[r].older;
      run(sc.worker, r);
      free_record(r);
      r = older;
    } while (r != 0);
    if (r != 0) {
      sc.newest = r;
      finish_stolen(s);
    }
    sc.newest = 0;
    current[sc.worker] = s;
  }

  // scope::finish_stolen
  void finish_stolen(int s) {
    scope_model& sc = scopes[s];
    for (int r = sc.newest; r != 0; r = rec[r].older) ++sc.stolen;
    wait_for_stolen(s);
    for (int r = sc.newest; r != 0;) {
      const int older = rec[r].older;
      free_record(r);
      r = older;
    }
    sc.stolen = 0;
    // Mutant: no reset; the next sync of a reused scope counts this one's thieves.
    if (fj_model::protocol_mutant("spawn.stolen_done.reset.skip")) return;
    sc.stolen_done.store(0, st(rl::mo_relaxed, "spawn.stolen_done.reset"),
                         RL_INFO);  // model: spawn.stolen_done.reset
  }

  // scope::end_with_exception (the destructor found an exception, none in flight: rethrown)
  int end_with_exception(int s) {
    scope_model& sc = scopes[s];
    sc.exception_claimed.store(0, st(rl::mo_relaxed, "spawn.exception.reset.dtor"),
                               RL_INFO);  // model: spawn.exception.reset.dtor
    const int e = sc.exception(RL_INFO);
    sc.exception(RL_INFO) = 0;
    return e;
  }

  // scope::rethrow_first
  int rethrow_first(int s) {
    scope_model& sc = scopes[s];
    // Mutant: no reset; the next sync of a reused scope loses its first exception.
    if (!fj_model::protocol_mutant("spawn.exception.reset.skip")) {
      sc.exception_claimed.store(0, st(rl::mo_relaxed, "spawn.exception.reset.sync"),
                                 RL_INFO);  // model: spawn.exception.reset.sync
    }
    const int e = sc.exception(RL_INFO);
    sc.exception(RL_INFO) = 0;
    return e;
  }

  // ---- detail/leapfrog.hpp ----

  // take_back_from_thief. The hints (empty(), oldest_index() < base) are left out: they only return false
  // early where steal_if would find nothing or decline.
  bool take_back_from_thief(int self, int r) {
    RL_ASSERT(!freed[r]);
    const std::uintptr_t runner_word =
        rec[r].runner.load(ld(rl::mo_acquire, "spawn.runner.read"), RL_INFO);  // model: spawn.runner.read
    if (runner_word == 0 || (runner_word & k_runner_done) != 0) return false;
    const int runner = worker_of(runner_word);
    const std::int64_t base = rec[r].runner_base(RL_INFO);
    auto accept = [&](std::int64_t index) {
      if (fj_model::protocol_mutant("spawn.accept.no_done_test")) return index >= base;
      if (fj_model::protocol_mutant("spawn.accept.no_base_test"))
        return (rec[r].runner.load(rl::mo_acquire, RL_INFO) & k_runner_done) == 0;
      return index >= base && (rec[r].runner.load(ld(rl::mo_acquire, "spawn.runner.accept"), RL_INFO) &
                               k_runner_done) == 0;  // model: spawn.runner.accept
    };
    const steal_result taken = spawned[runner].steal(accept);
    if (!taken.success) return false;
    const int item = taken.value;
    // (b): an item of r's call, never the thief's older work or what it pushed after the call returned.
    RL_ASSERT(item != k_foreign);
    RL_ASSERT(item != k_old);
    RL_ASSERT(descends_from(item, r));
    run_taken_record(self, item);
    return true;
  }

  // wait_for_stolen; the pause and the yield of a round that found nothing are Relacy's yield.
  void wait_for_stolen(int s) {
    scope_model& sc = scopes[s];
    while (sc.stolen_done.load(ld(rl::mo_acquire, "spawn.stolen_done.wait"), RL_INFO) !=
           sc.stolen) {  // model: spawn.stolen_done.wait
      bool worked = false;
      int r = sc.newest;
      for (std::uint32_t i = 0; i < sc.stolen && !worked; ++i, r = rec[r].older) {
        worked = take_back_from_thief(sc.worker, r);
      }
      if (!worked) rl::yield(1, RL_INFO);
    }
  }

  // ---- the two workers ----

  void thread(unsigned index) {
    if (index == 0) {
      // fj::scope s; s.spawn(...) for each child; then the destructor. With `reuse`:
      // for each child { s.spawn(...); try { s.sync(); } catch (...) {} }, the destructor finding nothing.
      scopes[0].worker = 0;
      current[0] = 0;
      for (int id = 1; id <= config.records; ++id) {
        if (!is_child(id, 0)) continue;
        spawn(0, id);
        if (!config.reuse) continue;
        finish_children(0);
        if (scopes[0].exception(RL_INFO) != 0) {
          const int e = rethrow_first(0);
          // The sync after a reset rethrows this round's exception, not a stale one.
          RL_ASSERT(e == winner[0] && e == exception_of(id));
        }
      }
      finish_children(0);
      if (scopes[0].exception(RL_INFO) != 0) rethrown = end_with_exception(0);
      // (a) every result is visible after the sync (a data race otherwise), with the call's value.
      for (int id = 1; id <= config.records; ++id) {
        RL_ASSERT(ran[id] == 1);
        if (!ends_with_exception(id)) RL_ASSERT(rec[id].result(RL_INFO) == value_of(id));
        RL_ASSERT(freed[id]);
      }
      // (c) the first exception: the one the claim's winner stored.
      if (!config.reuse) RL_ASSERT(rethrown == winner[0]);
    } else {
      model_deque& own = spawned[1];
      if (config.old_item) own.push(k_old);
      for (int i = 0; i < config.steals; ++i) {
        auto any = [](std::int64_t) { return true; };
        const steal_result s = spawned[0].steal(any);
        if (!s.success) continue;
        run_taken_record(1, s.value);
        if (config.foreign) {
          // The scheduler goes on with other work: something it spawns lands above the call's base.
          own.push(k_foreign);
          RL_ASSERT(own.pop() == k_foreign);
        }
      }
      if (config.old_item) RL_ASSERT(own.pop() == k_old);
    }
    fj_model::membarrier_thread_exit();
  }

  void after() {
    for (int id = 1; id <= config.records; ++id) {
      RL_ASSERT(ran[id] == 1);
      RL_ASSERT(freed[id]);
    }
    // (c) in every scope: one capture won the slot when a child threw, the others were dropped.
    // A reused scope: one winner per sync, each sync having one child.
    for (int sc = 0; sc <= config.records; ++sc) {
      const int syncs_with_throwers = config.reuse && sc == 0 ? throwers(sc) : throwers(sc) > 0 ? 1 : 0;
      RL_ASSERT(winners[sc] == syncs_with_throwers);
      RL_ASSERT(winners[sc] + dropped[sc] == throwers(sc));
    }
  }
};

spawn_scenario spawn_suite::config{};

const char* mode_name(deque_mode m) {
  switch (m) {
    case deque_mode::symmetric: return "symmetric";
    case deque_mode::asymmetric: return "asymmetric";
    case deque_mode::tsan: return "tsan";
  }
  return "?";
}

fj_model::scenario make(const char* name, const char* description, const spawn_scenario& config,
                        rl::scheduler_type_e scheduler, rl::iteration_t iterations, unsigned bound = 0) {
  return fj_model::suite_scenario<spawn_suite>(mode_name(config.mode), name, description, k_workers,
                                               scheduler, iterations, bound, config);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fj_model::scenario> scenarios;
  const auto bound = rl::fair_context_bound_scheduler_type;
  for (deque_mode mode : {deque_mode::symmetric, deque_mode::asymmetric, deque_mode::tsan}) {
    // The asymmetric steal (token, reloads, a membarrier that waits for the victim's barrier) needs a fourth
    // preemption before an owner takes anything back, and take-back and mutual then take minutes: that mode
    // runs the scenarios whose checks need no take-back, and foreign and below-base (a take-back each) with
    // a bound of 4. The spawn protocol's orders are the same in every mode.
    const bool asymmetric = mode == deque_mode::asymmetric;
    scenarios.push_back(make("two-leaves", "owner: spawns 2 leaves (both throw), syncs; thief: 2 steals",
                             {mode, {0, 0, 0}, 2, 0b110, 2, false, false, false}, bound, 0, 3));
    if (!asymmetric) {
      scenarios.push_back(
          make("take-back",
               "owner: spawns 1 record whose call spawns 2 leaves (both throw) on its runner; "
               "thief: 1 steal",
               {mode, {0, 0, 1, 1}, 3, 0b1100, 1, false, false, false}, bound, 0, 3));
      scenarios.push_back(make("mutual",
                               "owner: spawns 1 record, whose call spawns 1 record, whose call spawns 1 leaf "
                               "(throws); thief: 1 steal",
                               {mode, {0, 0, 1, 2}, 3, 0b1000, 1, false, false, false}, bound, 0, 3));
    }
    scenarios.push_back(make("reuse",
                             "owner: spawns 1 leaf (throws), syncs, spawns 1 leaf (throws), syncs; "
                             "thief: 2 steals",
                             {mode, {0, 0, 0}, 2, 0b110, 2, false, false, true}, bound, 0, 3));
    scenarios.push_back(make("foreign",
                             "owner: spawns 1 record whose call spawns 1 leaf; thief: 1 steal, then pushes "
                             "and pops a foreign item",
                             {mode, {0, 0, 1}, 2, 0, 1, true, false, false}, bound, 0, asymmetric ? 4 : 3));
    scenarios.push_back(make("below-base",
                             "owner: as foreign; thief: pushes an item of its own first (below the call's "
                             "base), 1 steal, pops it at the end",
                             {mode, {0, 0, 1}, 2, 0, 1, false, true, false}, bound, 0, asymmetric ? 4 : 3));
  }
  // The deque's own sites are the deque model's to mutate: list only the protocol's, found by the scenarios
  // as they run (sampling misses the asymmetric take-back).
  return fj_model::main_for("spawn", std::move(scenarios), argc, argv, "spawn.", 0);
}
