// Relacy model of the two words of a call from ordinary code (include/forkjoin/detail/algorithm/loop.hpp,
// shared_ends; docs/algorithms.md "Entering the pool"): the ends word, from which the caller takes single
// blocks from the left while the pool's end takes shares (a loop's from the left, a fold's from the right),
// and the share word, which the pool's end refills with each share once it is empty and takes from the left
// while the caller takes single blocks from the right.
//
// Every operation is relaxed: the words only decide who owns which block, and what a block computed travels
// through the root's completion, outside this model. Checked in every execution: each block is taken exactly
// once, by one thread, and each share lies inside the blocks it was taken from. The caller takes from the
// share word at any time here, not only once the ends met as in the algorithms: a stronger check. A protocol
// mutant refills the share word while it still has blocks (`ends.hold.early`): a block is then taken twice or
// never.

#include <cstdint>

#include "model_support.hpp"

namespace {

using fj_model::ld;
using fj_model::rmw;
using fj_model::st;

constexpr std::uint64_t k_half_max = 0xffffffffU;

// shared_ends, statement for statement.
struct ends_word {
  rl::atomic<std::uint64_t> word;

  void init(std::uint64_t blocks) { word.store(blocks << 32, rl::mo_relaxed, RL_INFO); }

  void hold(std::uint64_t first, std::uint64_t last) {
    word.store((last << 32) | first, st(rl::mo_relaxed, "ends.hold"), RL_INFO);  // model: ends.hold
  }

  bool take_left(std::uint64_t& block) {
    std::uint64_t w =
        word.load(ld(rl::mo_relaxed, "ends.take_left.load"), RL_INFO);  // model: ends.take_left.load
    while (true) {
      std::uint64_t const left = w & k_half_max;
      if (left >= (w >> 32)) return false;
      if (word.compare_exchange_weak(w, w + 1, rmw(rl::mo_relaxed, "ends.take_left.cas"), RL_INFO,
                                     rl::mo_relaxed, RL_INFO)) {  // model: ends.take_left.cas
        block = left;
        return true;
      }
    }
  }

  bool take_share(std::uint64_t& first, std::uint64_t& last, std::uint64_t divisor, bool from_left) {
    std::uint64_t w =
        word.load(ld(rl::mo_relaxed, "ends.take_share.load"), RL_INFO);  // model: ends.take_share.load
    while (true) {
      std::uint64_t const left = w & k_half_max;
      std::uint64_t const right = w >> 32;
      if (left >= right) return false;
      std::uint64_t const share = (right - left + divisor - 1) / divisor;
      std::uint64_t const new_left = from_left ? left + share : left;
      std::uint64_t const new_right = from_left ? right : right - share;
      if (word.compare_exchange_weak(w, (new_right << 32) | new_left,
                                     rmw(rl::mo_relaxed, "ends.take_share.cas"), RL_INFO, rl::mo_relaxed,
                                     RL_INFO)) {  // model: ends.take_share.cas
        first = from_left ? left : new_right;
        last = from_left ? new_left : right;
        return true;
      }
    }
  }

  bool take_right_block(std::uint64_t& block) {
    std::uint64_t last = 0;
    return take_share(block, last, k_half_max, false);
  }
};

template <int Blocks>
struct ends_suite : rl::test_suite<ends_suite<Blocks>, 2> {
  struct settings {
    bool fold = false;          // the pool's end takes its shares from the right (a fold's)
    std::uint64_t divisor = 2;  // its share: 1 / divisor of the blocks left
  };
  static inline settings config{};

  ends_word ends;
  ends_word share;
  int taken[Blocks];  // times each block was taken (Relacy runs one thread at a time)

  void before() {
    ends.init(Blocks);
    share.init(0);
    for (int& t : taken) t = 0;
  }

  void take(std::uint64_t b) {
    RL_ASSERT(b < static_cast<std::uint64_t>(Blocks));
    taken[b] += 1;
  }

  // The caller: its blocks from the left of the ends word (caller_end), then the share word's from the right.
  void caller() {
    std::uint64_t b = 0;
    while (ends.take_left(b)) take(b);
    while (share.take_right_block(b)) take(b);
  }

  // The pool's end: a share from the ends word, held in the share word, its blocks taken from the left
  // (pool_end_loop or pool_end_fold, with share_loop or share_fold). The mutant refills the word one block
  // before it is empty.
  void pool_end() {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    while (ends.take_share(first, last, config.divisor, !config.fold)) {
      RL_ASSERT(first < last && last <= static_cast<std::uint64_t>(Blocks));
      share.hold(first, last);
      std::uint64_t b = 0;
      while (share.take_left(b)) {
        take(b);
        if (fj_model::protocol_mutant("ends.hold.early")) break;
      }
    }
  }

  void thread(unsigned index) {
    if (index == 0) {
      caller();
    } else {
      pool_end();
    }
  }

  void after() {
    for (int t : taken) RL_ASSERT(t == 1);
  }
};

template <class Suite>
fj_model::scenario make(const char* name, const char* description, rl::scheduler_type_e scheduler,
                        rl::iteration_t iterations, unsigned bound, bool fold, std::uint64_t divisor) {
  typename Suite::settings config;
  config.fold = fold;
  config.divisor = divisor;
  return fj_model::suite_scenario<Suite>("production", name, description, 2, scheduler, iterations, bound,
                                         config);
}

}  // namespace

int main(int argc, char** argv) {
  using small = ends_suite<4>;
  using large = ends_suite<9>;
  std::vector<fj_model::scenario> scenarios;
  scenarios.push_back(make<small>("loop", "4 blocks, a loop's pool end (shares from the left, halves)",
                                  rl::fair_context_bound_scheduler_type, 0, 3, false, 2));
  scenarios.push_back(make<small>("fold", "4 blocks, a fold's pool end (shares from the right, halves)",
                                  rl::fair_context_bound_scheduler_type, 0, 3, true, 2));
  scenarios.push_back(make<large>("loop-random", "9 blocks, a loop's pool end taking quarters",
                                  rl::random_scheduler_type, 200000, 0, false, 4));
  scenarios.push_back(make<large>("fold-random", "9 blocks, a fold's pool end taking quarters",
                                  rl::random_scheduler_type, 200000, 0, true, 4));
  return fj_model::main_for("ends", std::move(scenarios), argc, argv);
}
