// Part of the consumer built as a shared object: forkjoin's static library must be position-independent to
// link into it.
#include <forkjoin/forkjoin.hpp>

#include "shared_part.hpp"

namespace {

fj::task<long> sum_to(long n) {
  if (n == 0) {
    co_return 0;
  }
  long rest = 0;
  co_await fj::call(&rest, sum_to, n - 1);
  co_return n + rest;
}

}  // namespace

long sum_in_shared_object(long n) {
  fj::lazy_pool pool(1);
  return fj::sync_wait(pool, sum_to, n);
}
