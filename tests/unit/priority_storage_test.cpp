// Single-threaded behaviour of the priority storages (ext/strict_priority_storage.hpp,
// ext/relaxed_priority_storage.hpp): order on one worker, every value taken exactly once, the k bound, block
// reclamation, the errors for bad input, and a push whose allocation fails. One thread plays every worker, so
// the outcomes are exact. Concurrent behaviour is in tests/stress/priority_storage_stress_test.cpp. This
// binary replaces the global operator new (support/counting_new.hpp) so that an allocation can be made to
// fail.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "forkjoin/ext/relaxed_priority_storage.hpp"
#include "forkjoin/ext/strict_priority_storage.hpp"
#include "support/counting_new.hpp"
#include "support/test_config.hpp"

namespace {

using strict = fj::strict_priority_storage<std::uint32_t>;
using relaxed4 = fj::relaxed_priority_storage<std::uint32_t, 4>;
// Blocks of 4 slots: the reclamation path runs every few items.
using relaxed_small_blocks = fj::relaxed_priority_storage<std::uint32_t, 2, 4>;

static_assert(fj::priority_storage<strict>);
static_assert(fj::priority_storage<relaxed4>);
static_assert(fj::priority_storage<relaxed_small_blocks>);
static_assert(fj::priority_storage<fj::relaxed_priority_storage<const int*, 1>>);
static_assert(relaxed4::relaxation == 4 && strict::relaxation == 0);

template <class S>
class PriorityStorage : public ::testing::Test {};

using storages = ::testing::Types<strict, relaxed4, relaxed_small_blocks>;
TYPED_TEST_SUITE(PriorityStorage, storages);

TYPED_TEST(PriorityStorage, OneWorkerPopsInPriorityOrder) {
  TypeParam s(1);
  std::mt19937_64 rng(fj::test::seed());
  std::vector<double> pushed;
  for (std::uint32_t i = 0; i < 200; ++i) {
    const double p = static_cast<double>(rng() % 50) - 10.0;
    s.push(0, i, p);
    pushed.push_back(p);
  }
  double last = -std::numeric_limits<double>::infinity();
  std::vector<int> seen(pushed.size(), 0);
  while (const std::optional<std::uint32_t> v = s.pop(0)) {
    ASSERT_LT(*v, pushed.size());
    EXPECT_GE(pushed[*v], last) << "a worker that pushed everything itself sees everything";
    last = pushed[*v];
    ++seen[*v];
  }
  for (const int n : seen) {
    EXPECT_EQ(n, 1);
  }
  EXPECT_TRUE(s.empty_hint());
}

TYPED_TEST(PriorityStorage, EqualPrioritiesComeOutOldestFirstOnOneWorker) {
  TypeParam s(1);
  for (std::uint32_t i = 0; i < 20; ++i) {
    s.push(0, i, 1.5);
  }
  for (std::uint32_t i = 0; i < 20; ++i) {
    EXPECT_EQ(s.pop(0), std::optional<std::uint32_t>(i));
  }
  EXPECT_EQ(s.pop(0), std::nullopt);
}

TYPED_TEST(PriorityStorage, EveryValueIsTakenExactlyOnceAcrossWorkers) {
  constexpr std::size_t workers = 3;
  TypeParam s(workers);
  std::mt19937_64 rng(fj::test::seed() + 1);
  constexpr std::uint32_t n = 3000;
  std::vector<int> taken(n, 0);
  std::uint32_t next = 0;
  std::uint32_t got = 0;
  // Pushes and pops interleaved at random over the workers; then every worker drains what it sees.
  while (next < n) {
    const std::size_t w = rng() % workers;
    if (rng() % 3 != 0) {
      s.push(w, next++, static_cast<double>(rng() % 1000));
    } else if (const std::optional<std::uint32_t> v = s.pop(w)) {
      ++taken[*v];
      ++got;
    }
  }
  EXPECT_FALSE(s.empty_hint());
  for (std::size_t w = 0; w < workers; ++w) {
    while (const std::optional<std::uint32_t> v = s.pop(w)) {
      ++taken[*v];
      ++got;
    }
  }
  EXPECT_EQ(got, n);
  for (std::uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(taken[i], 1) << "value " << i;
  }
  EXPECT_TRUE(s.empty_hint());
}

// Worker 0 pushes values whose priorities fall (the newest is the most urgent: the worst case for a storage
// that hides the newest items); worker 1 pops. Each pop may miss at most `relaxation` more urgent values.
TYPED_TEST(PriorityStorage, APopMissesAtMostKMoreUrgentValuesPushedElsewhere) {
  TypeParam s(2);
  constexpr std::uint32_t n = 300;
  std::vector<bool> present(n, false);
  std::size_t most_missed = 0;
  for (std::uint32_t round = 0; round < 3; ++round) {
    for (std::uint32_t i = 0; i < n; ++i) {
      if (!present[i]) {
        s.push(0, i, static_cast<double>(n - i) + 1000.0 * round);
        present[i] = true;
      }
    }
    // Half the values, popped by the other worker.
    for (std::uint32_t k = 0; k < n / 2; ++k) {
      const std::optional<std::uint32_t> v = s.pop(1);
      ASSERT_TRUE(v.has_value());
      ASSERT_TRUE(present[*v]);
      present[*v] = false;
      std::size_t missed = 0;
      for (std::uint32_t j = 0; j < n; ++j) {
        // Value j is more urgent than *v if it was pushed later in this round (priorities n - j fall).
        if (present[j] && j > *v) {
          ++missed;
        }
      }
      EXPECT_LE(missed, TypeParam::relaxation) << "pop returned " << *v;
      most_missed = std::max(most_missed, missed);
    }
    // Worker 0 takes back the rest (it sees all of its own).
    while (const std::optional<std::uint32_t> v = s.pop(0)) {
      present[*v] = false;
    }
  }
  if constexpr (TypeParam::relaxation > 0) {
    EXPECT_GT(most_missed, 0U) << "the relaxed storage is expected to hide the newest values";
  }
}

TYPED_TEST(PriorityStorage, BadInputIsRejectedWithANamedErrorAndStoresNothing) {
  TypeParam s(2);
  EXPECT_THROW(s.push(0, 1, std::numeric_limits<double>::quiet_NaN()), fj::priority_error);
  EXPECT_THROW(s.push(0, 1, -std::nan("")), fj::priority_error);
  EXPECT_THROW(s.push(2, 1, 0.0), fj::priority_error);
  EXPECT_THROW((void)s.pop(7), fj::priority_error);
  EXPECT_TRUE(s.empty_hint());
  EXPECT_EQ(s.pop(0), std::nullopt);
  // Infinities are ordered, so they are accepted.
  s.push(1, 5, std::numeric_limits<double>::infinity());
  s.push(1, 6, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(s.pop(1), std::optional<std::uint32_t>(6));
  EXPECT_EQ(s.pop(1), std::optional<std::uint32_t>(5));
  EXPECT_THROW(TypeParam(0), fj::invalid_config_error);
  try {
    s.push(0, 1, std::numeric_limits<double>::quiet_NaN());
  } catch (const fj::priority_error& e) {
    EXPECT_NE(std::string(e.what()).find("NaN"), std::string::npos) << e.what();
  }
}

// The shared array's blocks are deleted once every worker's head has left them: after many values went
// through, only the blocks around the tail remain.
TEST(RelaxedPriorityStorage, BlocksBehindEveryWorkerAreDeleted) {
  relaxed_small_blocks s(3);
  std::mt19937_64 rng(fj::test::seed() + 2);
  for (std::uint32_t i = 0; i < 5000; ++i) {
    s.push(i % 3, i, static_cast<double>(rng() % 100));
    if (i % 2 == 1) {
      (void)s.pop(rng() % 3);
    }
  }
  for (std::size_t w = 0; w < 3; ++w) {
    while (s.pop(w)) {
    }
  }
  // Every head is at the tail; the blocks at and just above it may still be there.
  EXPECT_LE(s.blocks_live(), 3U);
  EXPECT_TRUE(s.empty_hint());
}

// A worker that stops popping pins the blocks its head is in; they go once it pops again.
TEST(RelaxedPriorityStorage, AnIdleWorkerPinsBlocksUntilItPopsAgain) {
  relaxed_small_blocks s(2);
  for (std::uint32_t i = 0; i < 400; ++i) {
    s.push(0, i, static_cast<double>(i));
    (void)s.pop(0);
  }
  EXPECT_GT(s.blocks_live(), 50U);
  EXPECT_EQ(s.pop(1), std::nullopt);
  EXPECT_LE(s.blocks_live(), 3U);
}

// An index that only skips (a priority group's outside index between its pushes) pins no block, and its
// own values, which the others may not see, stay in its heap; every value is still taken exactly once.
TEST(RelaxedPriorityStorage, ASkippingIndexPinsNoBlocksAndKeepsItsOwnValues) {
  relaxed_small_blocks s(3);
  std::vector<int> taken(410, 0);
  s.push(2, 400, 5.0);
  s.push(2, 401, 6.0);
  for (std::uint32_t i = 0; i < 400; ++i) {
    s.push(i % 2, i, static_cast<double>(i));
    if (auto v = s.pop((i + 1) % 2)) ++taken[*v];
    s.skip(2);
  }
  EXPECT_LE(s.blocks_live(), 3U);
  for (std::size_t w = 0; w < 3; ++w) {
    while (auto v = s.pop(w)) ++taken[*v];
  }
  for (std::uint32_t v = 0; v < 402; ++v) {
    EXPECT_EQ(taken[v], 1) << "value " << v;
  }
  EXPECT_TRUE(s.empty_hint());
}

// A worker keeps the other workers' values in sorted runs, made at each refresh and merged as they grow; a
// pop still takes the most urgent value it sees. Workers 1 and 2 push at random priorities in batches, worker
// 0 pops between the batches (so it records a few values at a time: many runs and merges), and each of its
// pops is checked against every value still stored: none of its own more urgent, at most K of the others'.
TEST(RelaxedPriorityStorage, APopTakesTheMostUrgentValueItSeesAcrossManyRuns) {
  relaxed4 s(3);
  std::mt19937_64 rng(fj::test::seed() + 3);
  constexpr std::uint32_t n = 4000;
  std::vector<double> priority(n, 0.0);
  std::vector<std::size_t> pusher(n, 0);
  std::vector<bool> present(n, false);
  std::uint32_t next = 0;
  std::uint32_t got = 0;
  const auto check = [&](std::uint32_t v) {
    ASSERT_TRUE(present[v]) << "value " << v;
    present[v] = false;
    ++got;
    std::size_t missed = 0;
    for (std::uint32_t u = 0; u < next; ++u) {
      if (present[u] && priority[u] < priority[v]) {
        EXPECT_NE(pusher[u], 0U) << "worker 0 missed its own value " << u << " for " << v;
        ++missed;
      }
    }
    EXPECT_LE(missed, relaxed4::relaxation) << "pop returned " << v;
  };
  while (next < n) {
    const std::uint32_t batch = 1 + static_cast<std::uint32_t>(rng() % 24);
    for (std::uint32_t i = 0; i < batch && next < n; ++i) {
      const std::size_t w = rng() % 3;
      priority[next] = static_cast<double>(rng() % 500);
      pusher[next] = w;
      present[next] = true;
      s.push(w, next, priority[next]);
      ++next;
    }
    const std::uint32_t pops = static_cast<std::uint32_t>(rng() % 8);
    for (std::uint32_t i = 0; i < pops; ++i) {
      if (const std::optional<std::uint32_t> v = s.pop(0)) {
        check(*v);
      }
    }
  }
  while (const std::optional<std::uint32_t> v = s.pop(0)) {
    check(*v);
  }
  // Worker 0 drained what it sees: only the newest values of the others (at most K) can be left.
  std::uint32_t left = 0;
  for (std::uint32_t u = 0; u < n; ++u) {
    left += present[u] ? 1 : 0;
  }
  EXPECT_LE(left, relaxed4::relaxation);
  for (std::size_t w = 1; w < 3; ++w) {
    while (const std::optional<std::uint32_t> v = s.pop(w)) {
      ASSERT_TRUE(present[*v]);
      present[*v] = false;
      ++got;
    }
  }
  EXPECT_EQ(got, n);
}

// Among equal priorities a worker takes its own values first (ties across workers are not ordered by the
// contract); among the others' it takes the older first.
// A worker keeps its own values in one bucket per distinct priority (-0.0 and 0.0 are one), each in push
// order, and drops a bucket when its pops have emptied it.
TEST(RelaxedPriorityStorage, OwnValuesAreBucketedByPriorityInPushOrder) {
  relaxed4 s(1);
  const double priorities[] = {3.0, 1.0, -0.0, 2.0, 0.0};
  std::vector<std::pair<double, std::uint32_t>> expected;
  for (std::uint32_t i = 0; i < 1000; ++i) {
    const double p = priorities[i % 5];
    s.push(0, i, p);
    expected.emplace_back(p == 0.0 ? 0.0 : p, i);
  }
  EXPECT_EQ(s.own_priorities(0), 4u);
  std::sort(expected.begin(), expected.end());  // priority, then push order (the value)
  for (std::size_t n = 0; n < expected.size(); ++n) {
    const std::optional<std::uint32_t> v = s.pop(0);
    ASSERT_TRUE(v.has_value());
    ASSERT_EQ(*v, expected[n].second) << "pop " << n;
    if (n == 399) {
      EXPECT_EQ(s.own_priorities(0), 3u) << "the bucket of 0.0 (400 values) is dropped once empty";
    }
  }
  EXPECT_FALSE(s.pop(0).has_value());
  EXPECT_EQ(s.own_priorities(0), 0u);
}

// Pushes and pops interleaved over many distinct priorities (the buckets' table grows, loses entries and
// reuses buckets) and over few (buckets grow and shrink across segments), against a reference order:
// priority, then push order.
TEST(RelaxedPriorityStorage, BucketsKeepTheOrderUnderInterleavedPushesAndPops) {
  for (const std::uint64_t distinct : {3u, 50u, 5000u}) {
    relaxed4 s(1);
    std::mt19937_64 rng(fj::test::seed() + distinct);
    std::vector<std::pair<double, std::uint32_t>> held;  // (priority, value), value = push order
    std::uint32_t next = 0;
    for (int step = 0; step < 40000; ++step) {
      if (held.empty() || rng() % 5 < 3) {
        const double p = static_cast<double>(rng() % distinct) * 0.5;
        s.push(0, next, p);
        held.emplace_back(p, next);
        ++next;
      } else {
        const auto least = std::min_element(held.begin(), held.end());
        const std::optional<std::uint32_t> v = s.pop(0);
        ASSERT_TRUE(v.has_value());
        ASSERT_EQ(*v, least->second) << "distinct " << distinct << ", step " << step;
        held.erase(least);
      }
      if (step % 1000 == 0) {
        std::vector<double> keys;
        keys.reserve(held.size());
        for (const auto& h : held) {
          keys.push_back(h.first);
        }
        std::sort(keys.begin(), keys.end());
        ASSERT_EQ(s.own_priorities(0),
                  static_cast<std::size_t>(std::unique(keys.begin(), keys.end()) - keys.begin()));
      }
    }
    std::sort(held.begin(), held.end());
    for (const auto& h : held) {
      const std::optional<std::uint32_t> v = s.pop(0);
      ASSERT_TRUE(v.has_value());
      ASSERT_EQ(*v, h.second);
    }
    EXPECT_FALSE(s.pop(0).has_value());
  }
}

TEST(RelaxedPriorityStorage, AmongEqualPrioritiesAWorkerTakesItsOwnFirst) {
  relaxed4 s(2);
  for (std::uint32_t i = 0; i < 8; ++i) {
    s.push(1, 100 + i, 2.0);
  }
  s.push(0, 0, 2.0);
  s.push(0, 1, 2.0);
  EXPECT_EQ(s.pop(0), std::optional<std::uint32_t>(0));
  EXPECT_EQ(s.pop(0), std::optional<std::uint32_t>(1));
  for (std::uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(s.pop(0), std::optional<std::uint32_t>(100 + i));
  }
  EXPECT_EQ(s.pop(0), std::nullopt);
  EXPECT_EQ(s.pop(1), std::nullopt);
}

// A push that fails to allocate (a segment, a chunk of items, a block of the shared array) throws
// std::bad_alloc and stores nothing, even after it made a bucket for a new priority or room in a full one:
// the storage then holds an empty bucket, or an empty last segment, that a later pop passes over. Every
// allocation of such a push fails in turn, from states where it needs each of them; what remains comes out in
// order, and later pushes at the same priorities still work.
TEST(RelaxedPriorityStorage, APushThatFailsToAllocateStoresNothingAndLeavesTheOrder) {
  if (!fj::test::can_replace_global_new) {
    GTEST_SKIP() << "this sanitizer runtime owns the global operator new";
  }
  // Blocks of 64 slots and chunks of 64 items: the 64th push needs a new block and a new chunk. 60 entries
  // fill a segment of a bucket, so with `before` pushes at one priority, the failing push at that priority
  // needs a new segment when `before` is a multiple of 60.
  long failed_pushes = 0;  // the test means nothing if no push ever failed
  for (const std::uint32_t before : {0u, 1u, 59u, 60u, 63u, 64u, 120u, 127u}) {
    for (const double failing_priority : {1.0, 2.0, 0.5}) {
      bool threw = true;
      for (long n = 0; threw; ++n) {
        relaxed4 s(1);
        std::vector<std::pair<double, std::uint32_t>> expected;
        for (std::uint32_t i = 0; i < before; ++i) {
          s.push(0, i, 1.0);
          expected.emplace_back(1.0, i);
        }
        fj::test::allocations_before_failure = n;
        threw = false;
        try {
          s.push(0, 1000, failing_priority);
        } catch (const std::bad_alloc&) {
          threw = true;
          ++failed_pushes;
        }
        fj::test::allocations_before_failure = -1;
        if (!threw) {
          expected.emplace_back(failing_priority, 1000);
        }
        // A more urgent priority, then everything out: the pops pass over what the failed push left.
        s.push(0, 2000, 0.25);
        expected.emplace_back(0.25, 2000);
        std::sort(expected.begin(), expected.end());  // priority, then push order (the value)
        for (std::size_t i = 0; i < expected.size(); ++i) {
          const std::optional<std::uint32_t> v = s.pop(0);
          ASSERT_TRUE(v.has_value()) << "before " << before << ", priority " << failing_priority
                                     << ", failing allocation " << n << ", pop " << i;
          ASSERT_EQ(*v, expected[i].second) << "before " << before << ", priority " << failing_priority
                                            << ", failing allocation " << n << ", pop " << i;
        }
        EXPECT_FALSE(s.pop(0).has_value());
        EXPECT_EQ(s.own_priorities(0), 0u);
        // The same priorities work on.
        s.push(0, 3000, 1.0);
        s.push(0, 3001, failing_priority);
        s.push(0, 3002, 1.0);
        const std::vector<std::uint32_t> again =
            failing_priority < 1.0   ? std::vector<std::uint32_t>{3001, 3000, 3002}
            : failing_priority > 1.0 ? std::vector<std::uint32_t>{3000, 3002, 3001}
                                     : std::vector<std::uint32_t>{3000, 3001, 3002};
        for (const std::uint32_t value : again) {
          EXPECT_EQ(s.pop(0), std::optional<std::uint32_t>(value));
        }
        EXPECT_FALSE(s.pop(0).has_value());
        ASSERT_LT(n, 16) << "a push makes a few allocations at most";
      }
    }
  }
  EXPECT_GT(failed_pushes, 0);
}

}  // namespace
