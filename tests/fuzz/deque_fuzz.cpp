// libFuzzer target for fj::deque (include/forkjoin/ext/deque.hpp). The input is an operation sequence; see
// tests/fuzz/README.md for the byte format.
//
// Sequential mode: one thread runs push/pop/steal on a deque with a tiny initial capacity (1 to 8 slots, so
// it grows all the time) and compares every result with a std::deque oracle (pop takes the back, steal the
// front).
// Concurrent mode: the same operations on the owner's side while a real thief thread steals; at the end
// every pushed value must have been taken exactly once, and the thief must have taken its values in push
// order. Thread interleavings make this mode non-deterministic: a crash it finds may need several runs to
// reproduce.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <optional>
#include <thread>
#include <vector>

#include "forkjoin/ext/deque.hpp"

namespace {

using value_type = std::uint64_t;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "deque_fuzz: %s\n", what);
  std::abort();
}

void check(bool ok, const char* what) {
  if (!ok) {
    fail(what);
  }
}

// The first input byte: bits 0-1 give the initial capacity 2^k, bit 2 the fence mode, bit 3 the concurrent
// mode.
struct config {
  std::size_t capacity;
  fj::deque_fences fences;
  bool concurrent;
};

config read_config(std::uint8_t b) {
  return {std::size_t{1} << (b & 3U),
          (b & 4U) != 0 ? fj::deque_fences::symmetric : fj::deque_fences::automatic, (b & 8U) != 0};
}

// One operation byte: the top two bits choose the operation, the low six its repeat count.
enum class op { push_one, push_burst, pop, steal };

op decode(std::uint8_t b) { return static_cast<op>(b >> 6U); }

std::size_t repeat(std::uint8_t b) {
  switch (decode(b)) {
    case op::push_one: return 1;
    case op::push_burst: return (b & 63U) + 1U;  // up to 64 pushes: reaches large sizes in few bytes
    case op::pop:
    case op::steal: return (b & 7U) + 1U;
  }
  return 1;
}

void run_sequential(const config& cfg, const std::uint8_t* data, std::size_t size) {
  fj::deque<value_type> d(cfg.capacity, cfg.fences);
  auto owner = d.owner();
  auto thief = d.thief();
  std::deque<value_type> oracle;
  value_type next = 1;  // values are distinct, so a value read from the wrong slot cannot match by accident

  for (std::size_t i = 0; i < size; ++i) {
    const std::uint8_t b = data[i];
    for (std::size_t n = repeat(b); n > 0; --n) {
      switch (decode(b)) {
        case op::push_one:
        case op::push_burst:
          owner.push(next);
          oracle.push_back(next);
          ++next;
          break;
        case op::pop: {
          const std::optional<value_type> got = owner.pop();
          if (oracle.empty()) {
            check(!got.has_value(), "pop returned a value from an empty deque");
          } else {
            check(got.has_value(), "pop returned nothing from a non-empty deque");
            check(*got == oracle.back(), "pop returned a value other than the last pushed");
            oracle.pop_back();
          }
          break;
        }
        case op::steal: {
          const fj::steal_result<value_type> got = thief.steal();
          if (oracle.empty()) {
            check(got.status == fj::steal_status::empty, "steal did not report empty on an empty deque");
          } else {
            // With no concurrent thief or owner nothing can win a race against us.
            check(got.status == fj::steal_status::success, "steal failed on a non-empty deque");
            check(got.value == oracle.front(), "steal returned a value other than the oldest");
            oracle.pop_front();
          }
          break;
        }
      }
      check(owner.empty() == oracle.empty(), "owner empty() disagrees with the oracle");
      check(thief.empty() == oracle.empty(), "thief empty() disagrees with the oracle");
      const std::size_t cap = d.capacity();
      check(cap >= cfg.capacity && (cap & (cap - 1)) == 0,
            "capacity is not a power of two >= the initial one");
      check(cap >= oracle.size(), "capacity is smaller than the number of items");
    }
  }

  // Drain from both ends alternately: everything left must come out in the oracle's order.
  bool from_top = true;
  while (!oracle.empty()) {
    if (from_top) {
      const fj::steal_result<value_type> got = thief.steal();
      check(got && got.value == oracle.front(), "final steal disagrees with the oracle");
      oracle.pop_front();
    } else {
      const std::optional<value_type> got = owner.pop();
      check(got.has_value() && *got == oracle.back(), "final pop disagrees with the oracle");
      oracle.pop_back();
    }
    from_top = !from_top;
  }
  check(!owner.pop().has_value(), "pop after the drain returned a value");
  check(thief.steal().status == fj::steal_status::empty, "steal after the drain did not report empty");
}

void run_concurrent(const config& cfg, const std::uint8_t* data, std::size_t size) {
  fj::deque<value_type> d(cfg.capacity, cfg.fences);
  auto owner = d.owner();
  std::vector<value_type> owner_took;
  std::vector<value_type> thief_took;
  // release/acquire: the thief's last loop iteration happens after every push (the flag is set after them).
  std::atomic<bool> done{false};
  value_type next = 0;

  std::thread thief_thread([&d, &thief_took, &done] {
    auto thief = d.thief();
    for (;;) {
      // acquire: pairs with the release store of done below; after it, a final sweep sees every push.
      const bool last_round = done.load(std::memory_order_acquire);
      for (;;) {
        const fj::steal_result<value_type> got = thief.steal();
        if (got) {
          thief_took.push_back(got.value);
        } else if (got.status == fj::steal_status::empty) {
          break;
        }
      }
      // No yield: a thief that keeps stealing is what hits the races on the last item.
      if (last_round) {
        return;
      }
    }
  });

  auto owner_thief = d.thief();  // the owner thread may steal from its own deque as well
  for (std::size_t i = 0; i < size; ++i) {
    const std::uint8_t b = data[i];
    for (std::size_t n = repeat(b); n > 0; --n) {
      switch (decode(b)) {
        case op::push_one:
        case op::push_burst: owner.push(next++); break;
        case op::pop:
          if (const std::optional<value_type> got = owner.pop()) {
            owner_took.push_back(*got);
          }
          break;
        case op::steal:
          if (const fj::steal_result<value_type> got = owner_thief.steal()) {
            owner_took.push_back(got.value);
          }
          break;
      }
    }
  }
  // release: pairs with the acquire load of done in the thief.
  done.store(true, std::memory_order_release);
  thief_thread.join();
  while (const std::optional<value_type> got = owner.pop()) {
    owner_took.push_back(*got);
  }

  std::vector<std::uint8_t> seen(static_cast<std::size_t>(next), 0);
  for (const std::vector<value_type>* took : {&owner_took, &thief_took}) {
    for (const value_type v : *took) {
      check(v < next, "a taken value was never pushed");
      check(seen[static_cast<std::size_t>(v)] == 0, "a value was taken twice");
      seen[static_cast<std::size_t>(v)] = 1;
    }
  }
  check(owner_took.size() + thief_took.size() == next, "a pushed value was never taken");
  for (std::size_t i = 1; i < thief_took.size(); ++i) {
    check(thief_took[i - 1] < thief_took[i], "a thief took values out of push order");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const config cfg = read_config(data[0]);
  if (cfg.concurrent) {
    run_concurrent(cfg, data + 1, size - 1);
  } else {
    run_sequential(cfg, data + 1, size - 1);
  }
  return 0;
}
