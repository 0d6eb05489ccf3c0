// The chain's catch-up (scan.hpp, chain_ctx::catch_up; docs/protocols/scan.md section 3), driven step by step
// on a chain_ctx: the carry into a step found at its first look (the step is scanned in one pass), found part
// of the way through its first pass (the rest is scanned from it, and only the part before gets the second
// pass), and found only after the whole first pass. Each case runs with steps that scan first and with steps
// that fold first, inclusive and exclusive, in place and not, the part after the carry written with ordinary
// and with streaming stores (chain_ctx::final_pass). The moment the carry comes is fixed by an operation that
// holds the step's thread at a chosen call until the step before has published; the number of calls then
// shows where the first pass stopped, and the outputs must be std::'s.
#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <random>
#include <thread>
#include <vector>

namespace {

namespace algo = fj::detail::algo;

// std::plus that counts its calls on one thread and, at the gate_at-th of them, waits until `go` is set.
struct gated_plus {
  std::thread::id gated{};
  std::size_t gate_at = 0;
  std::size_t calls = 0;  // on the gated thread only
  std::atomic<bool> reached{false};
  std::atomic<bool> go{false};

  std::uint64_t operator()(std::uint64_t a, std::uint64_t b) {
    if (std::this_thread::get_id() == gated) {
      ++calls;
      if (calls == gate_at) {
        reached.store(true, std::memory_order_release);
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      }
    }
    return a + b;
  }
};

using ctx_type = algo::chain_ctx<std::uint64_t*, std::uint64_t*, std::uint64_t, gated_plus>;

constexpr std::size_t k_step = algo::scan_min_chunk;
constexpr std::size_t k_look = 64;

struct scan_case {
  bool inclusive;
  bool scans_first;
  bool in_place;
  bool stream;  // the part after the carry with streaming stores (chain_ctx::final_pass), whatever the size
};

// Runs three steps of k_step elements: step 1 on a second thread, held at its op call `gate_at` (0: step 0
// runs before step 1 starts) while this thread runs step 0; then step 2. Returns step 1's op calls.
std::size_t run_three_steps(const scan_case& c, std::size_t gate_at, std::vector<std::uint64_t>& out,
                            const std::vector<std::uint64_t>& in) {
  std::size_t const n = 3 * k_step;
  if (c.in_place) out = in;
  std::uint64_t* const src = c.in_place ? out.data() : const_cast<std::uint64_t*>(in.data());
  gated_plus op;
  ctx_type ctx(src, out.data(), &op, c.inclusive);
  algo::plan_chunks(ctx, 0, n, fj::partition{});
  EXPECT_EQ(ctx.steps, 3U);
  ctx.scans_first = c.scans_first;
  ctx.look = k_look;
  ctx.stream = c.stream;
  ctx.start(c.inclusive ? std::nullopt : std::optional<std::uint64_t>(7));
  if (gate_at == 0) {
    ctx.run(0);
    op.gated = std::this_thread::get_id();
    ctx.run(1);
  } else {
    std::atomic<bool> ready_to_run{false};
    std::thread second([&] {
      op.gated = std::this_thread::get_id();
      op.gate_at = gate_at;
      ready_to_run.store(true, std::memory_order_release);
      ctx.run(1);
    });
    while (!ready_to_run.load(std::memory_order_acquire)) std::this_thread::yield();
    while (!op.reached.load(std::memory_order_acquire)) std::this_thread::yield();
    ctx.run(0);
    op.go.store(true, std::memory_order_release);
    second.join();
  }
  std::size_t const calls = op.calls;
  op.gated = std::thread::id{};
  ctx.run(2);
  EXPECT_FALSE(ctx.stop.stopped());
  return calls;
}

// Step 1's op calls when its first pass stopped `pos` elements in (0: the carry was there at the first look).
std::size_t expected_calls(const scan_case& c, std::size_t pos) {
  if (pos == 0) return k_step;  // one pass from the carry
  // first pass pos - 1 (its first element starts the accumulator), the total 1, the rest k_step - pos, the
  // second pass pos (an exclusive scan that scans first writes its first output without a call)
  return k_step + pos - (c.scans_first && !c.inclusive ? 1 : 0);
}

TEST(ScanCatchUp, TheCarryAtTheFirstLookPartWayOrAfterThePass) {
  std::mt19937_64 gen(42);
  std::vector<std::uint64_t> in(3 * k_step);
  for (auto& x : in) x = gen() % 1000;
  for (bool inclusive : {true, false}) {
    std::vector<std::uint64_t> want(in.size());
    if (inclusive) {
      std::inclusive_scan(in.begin(), in.end(), want.begin());
    } else {
      std::exclusive_scan(in.begin(), in.end(), want.begin(), std::uint64_t{7});
    }
    for (bool scans_first : {true, false}) {
      for (bool in_place : {false, true}) {
        for (bool stream : {false, true}) {
          scan_case const c{inclusive, scans_first, in_place, stream};
          SCOPED_TRACE(testing::Message() << "inclusive " << inclusive << ", scans first " << scans_first
                                          << ", in place " << in_place << ", streaming " << stream);
          // The first part has k_look - 1 calls, every later one k_look: call 3 * k_look + 10 is in part 4,
          // so the first pass stops after 4 parts; the last call of the pass lets it end first.
          struct gate {
            std::size_t at;
            std::size_t pos;
          };
          for (gate const g : {gate{0, 0}, gate{3 * k_look + 10, 4 * k_look}, gate{k_step - 1, k_step}}) {
            SCOPED_TRACE(testing::Message() << "held at call " << g.at);
            std::vector<std::uint64_t> out(in.size());
            std::size_t const calls = run_three_steps(c, g.at, out, in);
            EXPECT_EQ(calls, expected_calls(c, g.pos));
            EXPECT_EQ(out, want);
          }
        }
      }
    }
  }
}

}  // namespace
