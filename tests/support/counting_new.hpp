// Replaces the global operator new and delete with versions that count the calls of every thread, for the
// tests that check a path never calls the allocator, and that can make a later allocation of the calling
// thread fail, for the tests of what a failed allocation leaves behind. Include it in exactly one translation
// unit of a test program (a replacement may be defined only once per program) and read
// fj::test::allocations, or set fj::test::allocations_before_failure.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#include "support/test_config.hpp"

namespace fj::test {
// relaxed: a statistic read by the thread that made the work it counts finish (a join or sync orders it).
inline std::atomic<long> allocations{0};
// Allocations this thread may still make before the next one throws std::bad_alloc (then it is -1 again);
// negative: none fails.
inline thread_local long allocations_before_failure = -1;
}  // namespace fj::test

// clang's TSan runtime defines the global operator new itself, so these replacements are left out there
// (test_config.hpp) and the counting tests are skipped.
#if FJ_TEST_CAN_REPLACE_GLOBAL_NEW
// g++ cannot see that these replacements pair malloc with free consistently and warns about the pairing.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

// A replacement may not be inline, hence definitions in a header that one translation unit includes.
// NOLINTBEGIN(misc-definitions-in-headers)
void* operator new(std::size_t n) {
  fj::test::allocations.fetch_add(1, std::memory_order_relaxed);
  if (fj::test::allocations_before_failure == 0) {
    fj::test::allocations_before_failure = -1;
    throw std::bad_alloc();
  }
  if (fj::test::allocations_before_failure > 0) --fj::test::allocations_before_failure;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
// NOLINTEND(misc-definitions-in-headers)
#endif
