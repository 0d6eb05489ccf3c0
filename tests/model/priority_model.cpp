// Relacy model of the k-relaxed priority storage (include/forkjoin/ext/relaxed_priority_storage.hpp,
// docs/protocols/priority.md).
//
// Each Relacy thread is one worker. The storage class below follows the production code statement by
// statement (push, place, block_for, append, refresh, leave_block, pop, acquire_item, give_back); every
// atomic operation carries the `// model:` marker of its production twin (tests/model/drift_check.cpp).
// skip (the outside index's catch-up) is modelled too. Pointers are indices into fixed arrays (0 is null); a
// priority is an int; the worker's own entries (`heap` here: a bucket per priority in production) and its
// runs (the other workers' items, sorted runs in production); both are sequential structures that only order
// the entries, so here they are two small arrays, each searched for its least entry in the production order
// (priority, then position), the own entries winning a tie of priorities. Modelling choices:
//  - a block's plain fields (`base`, and `alive`, which stands for its memory) are rl::vars: deleting a block
//    writes `alive`, and every access to a block reads it, so a delete that is not ordered after another
//    worker's last access is a data race, and an access after it a failed assertion;
//  - an item's value and its free-list link are rl::vars, as in production (plain fields): a taker's read of
//    the value not ordered before the owner's rewrite when it reuses the item is a data race;
//  - an item pool starts empty and takes a fresh item (a chunk of one) when nothing came back, so reuse
//    through the return list happens as soon as another worker has taken an item;
//  - the hint counters of empty_hint() and the statistics are left out (relaxed, no protocol depends on
//    them).
//
// Checked in every execution: each pushed value is taken exactly once (by a pop on some worker), and when
// every worker has drained what it sees nothing is left; the taker reads the value's payload (a plain
// variable the pusher wrote before push) without a data race; no block is used after it was deleted, and
// every block but those around the tail is deleted at the end. In the `bound` scenario, where the pushes
// happen before the other worker's pops, each of its pops misses at most K more urgent values.

#include <cstdint>

#include "model_support.hpp"

namespace {

using fj_model::ld;
using fj_model::rmw;
using fj_model::st;

constexpr int k_max_workers = 3;
constexpr int k_max_values = 10;  // value ids 1..9
constexpr int k_max_blocks = 10;  // block ids 1..9
constexpr int k_max_block_size = 4;
constexpr int k_items_per_worker = 5;
constexpr int k_max_items = k_max_workers * k_items_per_worker + 1;  // item ids 1..; 0 is null
constexpr int k_taken = 1000;                                        // no position is that large here
constexpr int k_max_heap = 12;

// A worker's script: 'p' pushes the worker's next value, 'o' pops once, 'd' pops until nothing is seen,
// 's' skips to the tail (the outside index of a priority group), 'f' (bound scenario) publishes "my pushes
// are done", 'w' waits for the other workers' 'f'.
struct priority_scenario {
  int k;
  int block_size;
  const char* script[k_max_workers];
  bool check_bound;
};

struct item_model {
  rl::atomic<int> position;
  rl::atomic<int> priority;
  rl::var<int> value;
  int owner = 0;  // constant
  rl::var<int> next;
};

struct block_model {
  rl::var<int> base;
  rl::var<int> alive;  // the block's memory: 1 while allocated, written 0 by the delete
  rl::atomic<int> next;
  rl::atomic<int> registered;
  rl::atomic<int> slots[k_max_block_size];
};

struct entry {
  int priority;
  int position;
  int it;
};

struct worker_model {
  rl::atomic<int> returned;
  int head = 0;
  int current = 0;
  int push_hint = 0;
  int push_hint_base = 0;
  int next_try = 0;
  entry heap[k_max_heap];
  int heap_size = 0;
  entry staged[k_max_heap];  // production: `runs` (and `recorded`)
  int staged_size = 0;
  int free = 0;
  int fresh_used = 0;
};

template <int Workers>
struct priority_suite : rl::test_suite<priority_suite<Workers>, Workers> {
  static priority_scenario config;

  rl::atomic<int> tail;
  block_model blocks[k_max_blocks];
  int blocks_made = 0;
  bool deleted[k_max_blocks];
  item_model items[k_max_items];
  worker_model workers[Workers];

  // The test's own bookkeeping (Relacy runs one fibre at a time, so plain fields are exact).
  rl::var<int> payload[k_max_values];
  int value_priority[k_max_values];
  int value_pusher[k_max_values];
  bool pushed[k_max_values];
  int taken[k_max_values];
  int next_value = 1;
  rl::atomic<int> pushes_done;

  int k() const { return config.k; }
  int bs() const { return config.block_size; }

  void before() {
    tail.store(0, rl::mo_relaxed, RL_INFO);
    blocks_made = 0;
    for (bool& d : deleted) d = false;
    const int first = new_block(0);
    for (int i = 1; i < k_max_items; ++i) {
      items[i].position.store(k_taken, rl::mo_relaxed, RL_INFO);
      items[i].priority.store(0, rl::mo_relaxed, RL_INFO);
      items[i].value(RL_INFO) = 0;
      items[i].next(RL_INFO) = 0;
      items[i].owner = (i - 1) / k_items_per_worker;
    }
    for (worker_model& w : workers) {
      w.returned.store(0, rl::mo_relaxed, RL_INFO);
      w.head = 0;
      w.current = first;
      w.push_hint = first;
      w.push_hint_base = 0;
      w.next_try = 0;
      w.heap_size = 0;
      w.staged_size = 0;
      w.free = 0;
      w.fresh_used = 0;
    }
    for (int v = 0; v < k_max_values; ++v) {
      payload[v](RL_INFO) = 0;
      value_priority[v] = 0;
      value_pusher[v] = -1;
      pushed[v] = false;
      taken[v] = 0;
    }
    next_value = 1;
    pushes_done.store(0, rl::mo_relaxed, RL_INFO);
  }

  // `new block(base, workers)`: its initialisation, published by the release CAS in append().
  int new_block(int base) {
    RL_ASSERT(blocks_made + 1 < k_max_blocks);
    const int b = ++blocks_made;
    block_model& blk = blocks[b];
    blk.base(RL_INFO) = base;
    blk.alive(RL_INFO) = 1;
    blk.next.store(0, rl::mo_relaxed, RL_INFO);
    blk.registered.store(Workers, rl::mo_relaxed, RL_INFO);
    for (rl::atomic<int>& s : blk.slots) s.store(0, rl::mo_relaxed, RL_INFO);
    return b;
  }

  // Every access to a block's memory: a data race if not ordered after its initialisation and before its
  // delete; a failed assertion if after the delete.
  block_model& use(int b) {
    RL_ASSERT(b > 0 && b <= blocks_made);
    RL_ASSERT(blocks[b].alive(RL_INFO) == 1);
    return blocks[b];
  }

  void delete_block(int b) {
    blocks[b].alive(RL_INFO) = 0;
    deleted[b] = true;
  }

  // ---- relaxed_priority_storage ----

  void push(int w, int value, int priority) {
    worker_model& me = workers[w];
    const int it = acquire_item(me, w);
    items[it].value(RL_INFO) = value;
    items[it].priority.store(priority, st(rl::mo_relaxed, "prio.item.priority"),
                             RL_INFO);  // model: prio.item.priority
    const int position = place(me, it);
    RL_ASSERT(me.heap_size < k_max_heap);
    me.heap[me.heap_size++] = entry{priority, position, it};
  }

  int pop(int w) {
    worker_model& me = workers[w];
    refresh(me, w);
    for (;;) {
      const int own = least(me.heap, me.heap_size);
      const int other = least(me.staged, me.staged_size);
      entry e{};
      // The least run entry only if it beats our own least entry's priority (ours first on a tie).
      if (other >= 0 && (own < 0 || me.staged[other].priority < me.heap[own].priority)) {
        e = me.staged[other];
        me.staged[other] = me.staged[--me.staged_size];
      } else if (own >= 0) {
        e = me.heap[own];
        me.heap[own] = me.heap[--me.heap_size];
        if (me.heap_size > 0) {
          // Production prefetches what the value of an own entry further on points to, reading the value
          // plainly, whether or not its item was taken meanwhile: only its owner (we) writes it.
          static_cast<void>(items[me.heap[0].it].value(RL_INFO));
        }
      } else {
        return 0;
      }
      // A stale entry is dropped on a load, without the read-modify-write.
      if (items[e.it].position.load(ld(rl::mo_relaxed, "prio.take.peek"), RL_INFO) !=
          e.position) {  // model: prio.take.peek
        continue;
      }
      int expected = e.position;
      bool won = false;
      if (fj_model::protocol_mutant("prio.take.weak")) {
        // Mutant: a weak CAS, which may fail spuriously and drop a live entry.
        won = items[e.it].position.compare_exchange_weak(expected, k_taken, rl::mo_relaxed, RL_INFO,
                                                         rl::mo_relaxed, RL_INFO);
      } else {
        won = items[e.it].position.compare_exchange_strong(expected, k_taken,
                                                           rmw(rl::mo_relaxed, "prio.take"), RL_INFO,
                                                           rl::mo_relaxed, RL_INFO);  // model: prio.take
      }
      if (won) {
        const int value = items[e.it].value(RL_INFO);
        give_back(me, w, e.it);
        return value;
      }
    }
  }

  // The index of the least entry (priority, then position) of a heap or the runs, or -1 when empty.
  static int least(const entry* entries, int size) {
    int best = -1;
    for (int i = 0; i < size; ++i) {
      const entry& a = entries[i];
      if (best < 0 || a.priority < entries[best].priority ||
          (a.priority == entries[best].priority && a.position < entries[best].position))
        best = i;
    }
    return best;
  }

  int acquire_item(worker_model& me, int w) {
    if (me.free == 0) {
      me.free = me.returned.exchange(0, rmw(rl::mo_acquire, "prio.reuse"), RL_INFO);  // model: prio.reuse
    }
    if (me.free == 0) {
      // A fresh chunk (of one item here).
      RL_ASSERT(me.fresh_used < k_items_per_worker);
      me.free = 1 + w * k_items_per_worker + me.fresh_used++;
      items[me.free].next(RL_INFO) = 0;
    }
    const int it = me.free;
    me.free = items[it].next(RL_INFO);
    return it;
  }

  void give_back(worker_model& me, int w, int it) {
    if (items[it].owner == w) {
      items[it].next(RL_INFO) = me.free;
      me.free = it;
      return;
    }
    rl::atomic<int>& list = workers[items[it].owner].returned;
    int first = list.load(ld(rl::mo_relaxed, "prio.return.load"), RL_INFO);  // model: prio.return.load
    do {
      items[it].next(RL_INFO) = first;
    } while (!list.compare_exchange_weak(first, it, rmw(rl::mo_release, "prio.return.cas"), RL_INFO,
                                         rl::mo_relaxed, RL_INFO));  // model: prio.return.cas
  }

  int block_for(int from, int position) {
    int b = from;
    while (position >= use(b).base(RL_INFO) + bs()) {
      const int n = use(b).next.load(ld(rl::mo_acquire, "prio.next.load"), RL_INFO);  // model: prio.next.load
      if (n == 0) {
        append(b);
        continue;
      }
      b = n;
    }
    return b;
  }

  void append(int b) {
    const int fresh = new_block(use(b).base(RL_INFO) + bs());
    int expected = 0;
    if (use(b).next.compare_exchange_strong(expected, fresh, rmw(rl::mo_release, "prio.next.cas"), RL_INFO,
                                            rl::mo_relaxed, RL_INFO)) {  // model: prio.next.cas
      return;
    }
    delete_block(fresh);  // never published
  }

  int place(worker_model& me, int it) {
    int t = tail.load(ld(rl::mo_relaxed, "prio.push.tail"), RL_INFO);  // model: prio.push.tail
    for (;;) {
      int b = me.push_hint_base >= use(me.current).base(RL_INFO) && me.push_hint_base <= t ? me.push_hint
                                                                                           : me.current;
      // Mutant prio.slot.peek.skip: store the attempt's position without looking at the slot first, scanning
      // from the tail as the published algorithm does (next_try alone also keeps positions fresh).
      const bool peek = !fj_model::protocol_mutant("prio.slot.peek.skip");
      // Slots in [t, next_try) were seen filled by this worker's earlier pushes.
      const int start = !peek || me.next_try < t ? t : me.next_try;
      for (int i = start; i < t + k(); ++i) {
        b = block_for(b, i);
        if (peek && use(b).slots[i & (bs() - 1)].load(ld(rl::mo_relaxed, "prio.slot.peek"), RL_INFO) !=
                        0) {  // model: prio.slot.peek
          continue;
        }
        items[it].position.store(i, st(rl::mo_relaxed, "prio.item.position"),
                                 RL_INFO);  // model: prio.item.position
        int empty = 0;
        bool placed = false;
        if (fj_model::protocol_mutant("prio.slot.cas.weak")) {
          // Mutant: a weak CAS; a spurious failure lets the tail pass a slot that stays empty.
          placed = use(b).slots[i & (bs() - 1)].compare_exchange_weak(empty, it, rl::mo_release, RL_INFO,
                                                                      rl::mo_relaxed, RL_INFO);
        } else {
          placed = use(b).slots[i & (bs() - 1)].compare_exchange_strong(
              empty, it, rmw(rl::mo_release, "prio.slot.cas"), RL_INFO, rl::mo_relaxed,
              RL_INFO);  // model: prio.slot.cas
        }
        if (placed) {
          me.push_hint = b;
          me.push_hint_base = use(b).base(RL_INFO);
          me.next_try = i + 1;
          return i;
        }
      }
      if (tail.compare_exchange_weak(t, t + k(), rmw(rl::mo_release, "prio.tail.cas"), RL_INFO,
                                     rl::mo_relaxed,
                                     RL_INFO)) {  // model: prio.tail.cas
        t += k();
      }
    }
  }

  void refresh(worker_model& me, int w) {
    const int t = tail.load(ld(rl::mo_acquire, "prio.scan.tail"), RL_INFO);  // model: prio.scan.tail
    while (me.head < t) {
      if (me.head == use(me.current).base(RL_INFO) + bs()) leave_block(me);
      const int it = use(me.current)
                         .slots[me.head & (bs() - 1)]
                         .load(ld(rl::mo_acquire, "prio.scan.slot"), RL_INFO);  // model: prio.scan.slot
      RL_ASSERT(it != 0);  // an empty slot below the tail
      if (items[it].owner != w) {
        if (items[it].position.load(ld(rl::mo_relaxed, "prio.scan.position"), RL_INFO) ==
            me.head) {  // model: prio.scan.position
          const int priority = items[it].priority.load(ld(rl::mo_relaxed, "prio.scan.priority"),
                                                       RL_INFO);  // model: prio.scan.priority
          RL_ASSERT(me.staged_size < k_max_heap);
          me.staged[me.staged_size++] = entry{priority, me.head, it};
        }
      }
      ++me.head;
    }
  }

  void leave_block(worker_model& me) {
    const int old = me.current;
    const int n = use(old).next.load(ld(rl::mo_acquire, "prio.scan.next"), RL_INFO);  // model: prio.scan.next
    RL_ASSERT(n != 0);  // no next block below the tail
    me.current = n;
    if (use(old).registered.fetch_sub(1, rmw(rl::mo_acq_rel, "prio.block.leave"), RL_INFO) ==
        1) {  // model: prio.block.leave
      delete_block(old);
    }
  }

  void skip(int w) {
    worker_model& me = workers[w];
    const int t = tail.load(ld(rl::mo_acquire, "prio.skip.tail"), RL_INFO);  // model: prio.skip.tail
    while (me.head < t) {
      if (me.head == use(me.current).base(RL_INFO) + bs()) leave_block(me);
      const int end = use(me.current).base(RL_INFO) + bs();
      me.head = t < end ? t : end;
    }
  }

  // ---- the test ----

  void take(int w, int v, int pops_missed_limit) {
    RL_ASSERT(v >= 1 && v < next_value);
    RL_ASSERT(payload[v](RL_INFO) == 100 + v);  // a data race here: the push does not happen before the take
    taken[v] += 1;
    RL_ASSERT(taken[v] == 1);
    if (pops_missed_limit >= 0) {
      // Values pushed by other workers, still there, more urgent than v: at most K.
      int missed = 0;
      for (int u = 1; u < next_value; ++u) {
        if (pushed[u] && taken[u] == 0 && value_pusher[u] != w && value_priority[u] < value_priority[v])
          ++missed;
      }
      RL_ASSERT(missed <= pops_missed_limit);
    }
  }

  void thread(unsigned index) {
    const int w = static_cast<int>(index);
    bool after_wait = false;
    for (const char* c = config.script[w]; *c != '\0'; ++c) {
      const int limit = config.check_bound && after_wait ? k() : -1;
      switch (*c) {
        case 'p': {
          const int v = next_value++;
          RL_ASSERT(v < k_max_values);
          // Falling priorities: the newest value is the most urgent, the worst case for the relaxation.
          value_priority[v] = 50 - v;
          value_pusher[v] = w;
          payload[v](RL_INFO) = 100 + v;
          push(w, v, value_priority[v]);
          pushed[v] = true;
          break;
        }
        case 'o':
          if (const int v = pop(w)) take(w, v, limit);
          break;
        case 'd':
          while (const int v = pop(w)) take(w, v, limit);
          break;
        case 's': skip(w); break;
        case 'f': pushes_done.fetch_add(1, rl::mo_release, RL_INFO); break;
        case 'w':
          while (pushes_done.load(rl::mo_acquire, RL_INFO) < Workers - 1) rl::yield(1, RL_INFO);
          after_wait = true;
          break;
        default: RL_ASSERT(false);
      }
    }
  }

  void after() {
    // Every worker drained what it sees at the end of its script, and a worker sees all of its own values:
    // nothing is left.
    for (int v = 1; v < next_value; ++v) RL_ASSERT(taken[v] == 1);
    // Blocks: every worker's head is in its current block; the ones before the oldest of those are deleted.
    int oldest = workers[0].current;
    for (const worker_model& w : workers) {
      if (blocks[w.current].base(RL_INFO) < blocks[oldest].base(RL_INFO)) oldest = w.current;
    }
    for (int b = 1; b <= blocks_made; ++b) {
      if (!deleted[b] && blocks[b].base(RL_INFO) < blocks[oldest].base(RL_INFO)) RL_ASSERT(false);
    }
  }
};

template <int Workers>
priority_scenario priority_suite<Workers>::config{};

template <int Workers>
fj_model::scenario make(const char* name, const char* description, const priority_scenario& config,
                        rl::scheduler_type_e scheduler, rl::iteration_t iterations, unsigned bound = 0) {
  return fj_model::suite_scenario<priority_suite<Workers>>("production", name, description, Workers,
                                                           scheduler, iterations, bound, config);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fj_model::scenario> scenarios;
  const auto bounded = rl::fair_context_bound_scheduler_type;
  const auto random = rl::random_scheduler_type;
  scenarios.push_back(make<2>("push-pop", "k=1, blocks of 2; each worker: push, pop, push, drain",
                              {1, 2, {"popd", "popd", ""}, false}, bounded, 0, 2));
  scenarios.push_back(make<2>("reuse",
                              "k=1, blocks of 2; worker 0: push, push, drain, push, push, drain; worker 1: "
                              "pop x3, drain",
                              {1, 2, {"ppdppd", "oood", ""}, false}, random, 100000));
  scenarios.push_back(make<2>("bound",
                              "k=2, blocks of 2; worker 0: push x4 (newest most urgent), done, drain; "
                              "worker 1: waits for it, drains, each pop missing at most k values",
                              {2, 2, {"ppppfd", "wd", ""}, true}, bounded, 0, 2));
  scenarios.push_back(make<2>("skip",
                              "k=1, blocks of 2; worker 0: push, push, pop, push, drain; worker 1 (an "
                              "outside index): push, skip, skip, drain",
                              {1, 2, {"ppopd", "pssd", ""}, false}, bounded, 0, 2));
  scenarios.push_back(make<3>("three-workers", "k=2, blocks of 2; each of 3 workers: push, pop, push, drain",
                              {2, 2, {"popd", "popd", "popd"}, false}, random, 50000));
  return fj_model::main_for("priority", std::move(scenarios), argc, argv);
}
