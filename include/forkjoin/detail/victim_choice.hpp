#pragma once
// How a thief picks the worker it tries to steal from (paper III-D), as the pool's victim part says
// (basic_pool.hpp): with the topology's Eq. 6 weights (victim_sampler, with its own generator; by default
// when the workers are pinned to a non-uniform machine), uniformly at random among the other workers
// (victim_choice's xorshift), or by a user's part (ext/victim_part.hpp) through one indirect call. Used by
// the scheduler loop (src/scheduler.cpp), one per worker; not thread-safe.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "forkjoin/detail/pool_core.hpp"
#include "forkjoin/topology.hpp"

namespace fj::detail {

// xoshiro256** (Blackman and Vigna), seeded through splitmix64: a fast generator for the steal loop, not for
// anything that needs unpredictability.
class xoshiro256ss {
 public:
  explicit xoshiro256ss(std::uint64_t seed) noexcept {
    for (std::uint64_t& word : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }

  std::uint64_t operator()() noexcept {
    const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }

 private:
  std::uint64_t s_[4]{};
};

// Draws steal victims for one worker with the probabilities of topology::victim_weights(self), in constant
// time (Walker's alias method, built with Vose's algorithm). Never returns self, unless self is the only
// core. Not thread-safe: one sampler per worker.
class victim_sampler {
 public:
  // Builds the alias table from topo.victim_weights(self) (src/victim_choice.cpp).
  victim_sampler(const topology& topo, std::size_t self, std::uint64_t seed);

  // The next victim: an index into the topology, != self when size() >= 2.
  [[nodiscard]] std::size_t operator()() noexcept {
    if (columns_.empty()) {
      return self_;
    }
    const std::uint64_t x = rng_();
    // Lemire's multiply-shift maps the high half to a column; the low half decides column or alias.
    const auto c = static_cast<std::size_t>(((x >> 32) * columns_.size()) >> 32);
    const column& col = columns_[c];
    const std::size_t chosen = (x & 0xffff'ffffULL) < col.threshold ? c : col.alias;
    return core_of(chosen);
  }

  [[nodiscard]] std::size_t self() const noexcept { return self_; }

 private:
  static constexpr std::uint64_t k_always = std::uint64_t{1} << 32;

  struct column {
    std::uint64_t threshold;  // keep this column's core iff the low 32 random bits are below it
    std::uint32_t alias;      // otherwise take this column's core
  };

  // A probability as a threshold on 32 random bits (k_always: always below).
  static std::uint64_t to_threshold(double p) noexcept;

  // Column c stands for core c, skipping self.
  [[nodiscard]] std::size_t core_of(std::size_t c) const noexcept { return c < self_ ? c : c + 1; }

  std::size_t self_;
  xoshiro256ss rng_;
  std::vector<column> columns_;
};

// One worker's victim choice: a user's part when the pool has one, the sampler when victims are weighted,
// else uniform over the other workers. Each on cache lines of its own: a worker writes its state on every
// steal attempt, and the pool keeps them side by side in one vector.
class alignas(128) victim_choice {
 public:
  // Uniform over `workers` workers, never `self` (unless it is the only one).
  victim_choice(std::size_t workers, std::size_t self)
      : workers_(workers), self_(self), state_(0x9E3779B97F4A7C15ULL * (self + 1)) {}
  // Weighted by the topology's Eq. 6, whose core `self` this worker is pinned to.
  victim_choice(const topology& placement, std::size_t self)
      : workers_(placement.size()),
        self_(self),
        sampler_(std::in_place, placement, self, 0x5DEECE66DULL + self) {}
  // A user's part, made here (its constructor's exception propagates) and freed with this choice; one per
  // worker of `placement` (worker i on its core i).
  victim_choice(const pool_core::custom_victims& part, const topology& placement, std::size_t self)
      : workers_(placement.size()),
        self_(self),
        custom_next_(part.next),
        custom_name_(part.name),
        custom_(part.make(placement.size(), self, placement), part.destroy) {}

  // The next victim: a worker index, != self when there are two workers or more, except that a user's part
  // may return self to skip an attempt (ext/victim_part.hpp).
  [[nodiscard]] std::size_t operator()() noexcept {
    if (custom_next_ != nullptr) return custom_victim();
    if (sampler_) return (*sampler_)();
    if (workers_ < 2) return self_;
    // xorshift64: uniform victims need speed, not quality.
    std::uint64_t x = state_;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    state_ = x;
    auto const victim = static_cast<std::size_t>(x % (workers_ - 1));
    return victim >= self_ ? victim + 1 : victim;
  }

 private:
  // A user's part may return anything: an index past the workers would read outside the pool's vector of
  // workers, so it stops the process with a message naming the part instead. One compare, on the steal path.
  [[nodiscard]] std::size_t custom_victim() noexcept {
    std::size_t const victim = custom_next_(custom_.get());
    if (victim >= workers_) [[unlikely]] {
      bad_victim(victim);
    }
    return victim;
  }
  // Out of line (src/victim_choice.cpp): only reached on a broken part.
  [[noreturn]] void bad_victim(std::size_t victim) const noexcept;

  std::size_t workers_;
  std::size_t self_;
  std::uint64_t state_ = 0;
  std::optional<victim_sampler> sampler_;
  std::size_t (*custom_next_)(void* part) noexcept = nullptr;
  const char* custom_name_ = nullptr;
  std::unique_ptr<void, void (*)(void* part) noexcept> custom_{nullptr, nullptr};
};

}  // namespace fj::detail
