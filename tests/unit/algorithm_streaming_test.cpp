// transform's streaming stores (include/forkjoin/detail/algorithm/streaming_store.hpp): stream_fill against
// plain stores for every element size, line offset and count around a line, with guards on both sides; a
// throwing element function; when a call streams (size, overlap, iterator and element type); transform of
// an output larger than the last-level cache against std::transform, unary, binary, in place, from a task,
// and with an exception; and the scans of such an output (the part of each step after its carry streams)
// against std::inclusive_scan and std::exclusive_scan.
#include <gtest/gtest.h>
#include <forkjoin/algorithm.hpp>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/algorithm_test_support.hpp"

namespace {

using namespace fj::test::algo;
namespace algo = fj::detail::algo;

#if FJ_STREAMING_STORES
template <class T>
void check_stream_fill() {
  constexpr std::size_t per_line = algo::stream_line_bytes / sizeof(T);
  constexpr std::size_t room = 8 * per_line;
  T const guard = static_cast<T>(99);
  for (std::size_t offset = 0; offset <= per_line; ++offset) {
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, per_line - 1, per_line, per_line + 1,
                              3 * per_line + 5, room - per_line - 1}) {
      // A line-aligned buffer with a line of guards before the output.
      std::vector<T> storage(room + 3 * per_line, guard);
      auto const address = reinterpret_cast<std::uintptr_t>(storage.data());
      std::size_t const align =
          (algo::stream_line_bytes - address % algo::stream_line_bytes) % algo::stream_line_bytes / sizeof(T);
      T* const out = storage.data() + align + per_line + offset;
      std::size_t calls = 0;
      algo::stream_fill(out, count, [&] { return static_cast<T>(7 * calls++ + 1); });
      ASSERT_EQ(calls, count) << "offset " << offset << " count " << count;
      for (std::size_t i = 0; i < count; ++i) {
        ASSERT_EQ(out[i], static_cast<T>(7 * i + 1))
            << "sizeof " << sizeof(T) << " offset " << offset << " i " << i;
      }
      for (T* p = storage.data(); p < out; ++p) ASSERT_EQ(*p, guard);
      for (T* p = out + count; p < storage.data() + storage.size(); ++p) ASSERT_EQ(*p, guard);
    }
  }
}

TEST(AlgorithmStreaming, StreamFillWritesEveryElementInOrderAndNothingElse) {
  check_stream_fill<std::uint8_t>();
  check_stream_fill<std::int16_t>();
  check_stream_fill<std::uint32_t>();
  check_stream_fill<float>();
  check_stream_fill<std::int64_t>();
  check_stream_fill<double>();
}

TEST(AlgorithmStreaming, StreamFillLetsAThrowThroughAndWritesOnlyItsRange) {
  std::vector<std::uint64_t> storage(256, 5);
  std::uint64_t* const out = storage.data() + 13;
  std::size_t calls = 0;
  EXPECT_THROW(algo::stream_fill(out, 200,
                                 [&]() -> std::uint64_t {
                                   if (calls == 100) throw std::runtime_error("element 100");
                                   return calls++;
                                 }),
               std::runtime_error);
  for (std::size_t i = 0; i < 13; ++i) EXPECT_EQ(storage[i], 5U);
  for (std::size_t i = 213; i < storage.size(); ++i) EXPECT_EQ(storage[i], 5U);
}
#endif

std::size_t streamed_size() { return algo::streaming_threshold_bytes() / sizeof(std::uint64_t) + 1001; }

// Whether n elements of 8 bytes (three or four such arrays per test) are more than a test should allocate.
bool too_large_to_test(std::size_t n) { return n * sizeof(std::uint64_t) > (std::size_t{512} << 20); }

// The pools of 1, 2 and 4 workers, as their common base (the oversubscribed one would only slow these down).
std::vector<fj::detail::pool_base*> pools_up_to_four() {
  pools& p = all_pools();
  return {&p.one, &p.two, &p.four};
}

TEST(AlgorithmStreaming, OnlyLargeSeparateOutputsOfPlainNumbersStream) {
  std::size_t const n = streamed_size();
  std::vector<std::uint64_t> in(n), out(n);
  bool const can = algo::streamable_output<std::vector<std::uint64_t>::iterator>;
  EXPECT_EQ(can, FJ_STREAMING_STORES == 1 && !fj::detail::tsan_build);
  EXPECT_EQ(algo::streams(in.begin(), out.begin(), n), can);
  EXPECT_EQ(algo::streams(in.cbegin(), out.data(), n), can);
  EXPECT_FALSE(algo::streams(in.begin(), out.begin(), n / 2));  // below the threshold
  EXPECT_FALSE(algo::streams(in.begin(), in.begin(), n));       // in place: the lines are cached already
  EXPECT_FALSE(algo::streams(in.begin(), in.begin() + 1, n - 1));
  EXPECT_FALSE(algo::streams(in.begin(), out.begin(), 0));
  static_assert(!algo::streamable_output<std::deque<std::uint64_t>::iterator>);  // not contiguous
  static_assert(!algo::streamable_output<std::string*>);                         // not a number
  static_assert(!algo::streamable_output<const std::uint64_t*>);
  static_assert(!algo::streamable_output<std::vector<bool>::iterator>);  // a proxy reference
}

// A line-aligned vector's data plus one element, so that the output starts and ends inside a line.
struct offset_output {
  std::vector<std::uint64_t> storage;
  std::uint64_t* out;
  explicit offset_output(std::size_t n) : storage(n + 16, 0) {
    auto const address = reinterpret_cast<std::uintptr_t>(storage.data());
    out = storage.data() + (64 - address % 64) % 64 / 8 + 1;
  }
};

TEST(AlgorithmStreaming, LargeTransformsMatchStdTransform) {
  std::size_t const n = streamed_size();
  if (too_large_to_test(n)) GTEST_SKIP() << "last-level cache too large to test";
  std::vector<std::uint64_t> in(n), in2(n), expected(n), expected2(n);
  for (std::size_t i = 0; i < n; ++i) {
    in[i] = i * 2654435761U;
    in2[i] = i ^ 0x5555;
  }
  auto const f = [](std::uint64_t x) { return 3 * x + 1; };
  auto const g = [](std::uint64_t x, std::uint64_t y) { return x * 5 + y; };
  std::transform(in.begin(), in.end(), expected.begin(), f);
  std::transform(in.begin(), in.end(), in2.begin(), expected2.begin(), g);
  for (fj::detail::pool_base* pool : pools_up_to_four()) {
    offset_output o(n);
    EXPECT_EQ(fj::transform(*pool, in.begin(), in.end(), o.out, f), o.out + n);
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), o.out));
    EXPECT_EQ(o.out[-1], 0U);
    EXPECT_EQ(o.out[n], 0U);
    std::vector<std::uint64_t> out2(n);
    fj::transform(*pool, in.begin(), in.end(), in2.begin(), out2.begin(), g);
    EXPECT_EQ(out2, expected2);
    std::vector<std::uint64_t> same = in;  // in place: not streamed, still right
    fj::transform(*pool, same.begin(), same.end(), same.begin(), f);
    EXPECT_EQ(same, expected);
    std::vector<std::uint64_t> out3(n);
    fj::sync_wait(*pool, [&]() -> fj::task<void> {
      co_await fj::call(fj::co::transform, in.begin(), in.end(), out3.begin(), f);
      co_await fj::join;
    });
    EXPECT_EQ(out3, expected);
  }
}

TEST(AlgorithmStreaming, LargeScansMatchStd) {
  std::size_t const n = streamed_size();
  if (too_large_to_test(n)) GTEST_SKIP() << "last-level cache too large to test";
  std::vector<std::uint64_t> in(n), inclusive(n), exclusive(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = (i * 2654435761U) % 1000;
  std::inclusive_scan(in.begin(), in.end(), inclusive.begin());
  std::exclusive_scan(in.begin(), in.end(), exclusive.begin(), std::uint64_t{7});
  for (fj::detail::pool_base* pool : pools_up_to_four()) {
    offset_output o(n);
    fj::inclusive_scan(*pool, in.begin(), in.end(), o.out);
    EXPECT_TRUE(std::equal(inclusive.begin(), inclusive.end(), o.out));
    EXPECT_EQ(o.out[-1], 0U);
    EXPECT_EQ(o.out[n], 0U);
    std::vector<std::uint64_t> out(n);
    fj::exclusive_scan(*pool, in.begin(), in.end(), out.begin(), std::uint64_t{7});
    EXPECT_EQ(out, exclusive);
    std::vector<std::uint64_t> same = in;  // in place: not streamed, still right
    fj::inclusive_scan(*pool, same.begin(), same.end(), same.begin());
    EXPECT_EQ(same, inclusive);
    std::vector<std::uint64_t> out2(n);
    fj::sync_wait(*pool, [&]() -> fj::task<void> {
      co_await fj::call(fj::co::exclusive_scan, in.begin(), in.end(), out2.begin(), std::uint64_t{7});
      co_await fj::join;
    });
    EXPECT_EQ(out2, exclusive);
  }
}

TEST(AlgorithmStreaming, AThrowInALargeTransformReachesTheCaller) {
  std::size_t const n = streamed_size();
  if (too_large_to_test(n)) GTEST_SKIP() << "last-level cache too large to test";
  std::vector<std::uint64_t> in(n, 1), out(n, 0);
  std::atomic<std::size_t> calls{0};
  auto& pool = all_pools().two;
  EXPECT_THROW(fj::transform(pool, in.begin(), in.end(), out.begin(),
                             [&](const std::uint64_t& x) -> std::uint64_t {
                               calls.fetch_add(1, std::memory_order_relaxed);
                               if (&x - in.data() == static_cast<std::ptrdiff_t>(n / 3)) {
                                 throw std::runtime_error("element n/3");
                               }
                               return x + 1;
                             }),
               std::runtime_error);
  EXPECT_LT(calls.load(), n);
}

}  // namespace
