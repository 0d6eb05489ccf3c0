// AddressSanitizer sees a use after free of memory on a segmented stack: a frame or an fj::scratch array that
// a task kept a pointer into is poisoned once it is freed, so reading it reports use-after-poison. Without
// the poisoning ASan could not see it, since the stacklet under the frame is live heap memory (docs/traps.md
// "AddressSanitizer and stacklets"). ASan builds only.

#include <gtest/gtest.h>
#include <forkjoin/forkjoin.hpp>

#include "support/test_config.hpp"

#if defined(FJ_DETAIL_STACK_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace {

fj::task<void> nothing() { co_return; }

// Leaks the address of an array in its own frame (it lives across a suspension, so it is in the frame).
fj::task<int> leak_frame_address(volatile int** out) {
  int in_frame[4] = {1, 2, 3, 4};
  *out = in_frame;
  co_await fj::call(nothing);
  co_await fj::join;
  co_return in_frame[0] + in_frame[3];
}

// Reads the finished child's frame through the leaked pointer.
fj::task<int> read_freed_frame(bool read) {
  volatile int* p = nullptr;
  int r = 0;
  co_await fj::call(&r, leak_frame_address, &p);
  co_await fj::join;
  co_return read ? r + p[1] : r;
}

fj::task<int> read_freed_scratch(bool read) {
  volatile int* p = nullptr;
  {
    fj::scratch<int> buf(32);
    buf[5] = 7;
    p = buf.data();
  }
  co_await fj::call(nothing);
  co_await fj::join;
  co_return read ? p[5] : 0;
}

#if defined(FJ_DETAIL_STACK_ASAN)
fj::task<int> poisoned_after_free() {
  volatile int* p = nullptr;
  int r = 0;
  co_await fj::call(&r, leak_frame_address, &p);
  co_await fj::join;
  co_return __asan_address_is_poisoned(const_cast<int*>(p)) != 0 ? 1 : 0;
}
#endif

TEST(FramePoisoning, FreedFramesArePoisonedOnTheStacklet) {
  if (!fj::test::asan) GTEST_SKIP() << "frames are poisoned only in AddressSanitizer builds";
#if defined(FJ_DETAIL_STACK_ASAN)
  fj::unit_pool pool;
  EXPECT_EQ(fj::sync_wait(pool, poisoned_after_free), 1);
  // Reading nothing freed is fine.
  EXPECT_EQ(fj::sync_wait(pool, read_freed_frame, false), 5);
  EXPECT_EQ(fj::sync_wait(pool, read_freed_scratch, false), 0);
#endif
}

TEST(FramePoisoningDeathTest, ReadingAFinishedChildsFrameIsReported) {
  if (!fj::test::asan) GTEST_SKIP() << "needs AddressSanitizer (the asan presets)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        fj::unit_pool pool;
        (void)fj::sync_wait(pool, read_freed_frame, true);
      },
      "use-after-poison");
}

TEST(FramePoisoningDeathTest, ReadingAFreedScratchArrayIsReported) {
  if (!fj::test::asan) GTEST_SKIP() << "needs AddressSanitizer (the asan presets)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        fj::busy_pool pool(2);
        (void)fj::sync_wait(pool, read_freed_scratch, true);
      },
      "use-after-poison");
}

}  // namespace
