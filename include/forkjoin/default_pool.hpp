#pragma once
// fj::default_pool(): the pool used where none is named (fj::sync_wait(fn, args...), an fj::scope opened on
// an ordinary thread, the algorithms without a pool argument). A lazy_pool with the default options (one
// worker per hardware thread, sleeping when idle), created by the first call, one per program, and shut down
// when the program exits (after main returns, with the other function-local statics). An explicit pool
// remains the way to choose the worker count, pinning or the stack budget.

#include "forkjoin/lazy_pool.hpp"

namespace fj {

// Thread-safe on first use (a function-local static). Inline, so that every translation unit of the program
// shares the one pool, and so that it is constructed in a user's translation unit: the pool's check that the
// user's compile-time modes match the library's (detail/build_mode.hpp) applies to it too.
// Do not call std::exit from one of its workers: shutting it down would wait for that worker (the process
// stops with fj::deadlock_error's message).
inline lazy_pool& default_pool() {
  static lazy_pool pool;
  return pool;
}

}  // namespace fj
