#pragma once
// What a victim part is: the part of an fj::basic_pool (basic_pool.hpp) that tells an idle worker which other
// worker to try to steal from. The pool makes one per worker when it starts and calls it on that worker's
// steal path only, one indirect call per steal attempt; fork, call, join and spawn never reach it. The
// built-in parts (fj::default_victims, fj::uniform_victims, fj::numa_victims, fj::no_victims) are tags the
// library's engine implements inline; any other type that models `victim_part` is a user's part. A worked
// example, and how to write one step by step: ext/nearest_first_victims.hpp.
//
// The contract, for a part `V` of a pool of `workers` workers:
//  - V(workers, self, placement) makes worker `self`'s part, on the thread that constructs the pool, before
//    any worker runs (so a worker sees everything the constructor wrote). `placement` is the workers'
//    topology: worker i is its core i (pinned there with pool_options::pinning = pin_policy::cores when the
//    workers fit on the machine; otherwise a flat topology of `workers` cores). An exception from the
//    constructor leaves the pool's constructor; the parts already made are destroyed.
//  - v() returns the worker to try next: an index below `workers`. Returning `self` skips this attempt (the
//    worker goes on to its idle policy's next round, as after a failed steal). Any other index, with its
//    deques empty or not, is tried. An index >= workers stops the process with a message naming the part
//    (the message uses V::name when V has a `static constexpr const char* name`).
//  - v() is called only by worker `self`'s thread, never concurrently, and never when workers < 2: the part's
//    state needs no synchronisation. It must not block, throw (it is noexcept), or run forkjoin code; it runs
//    on every steal attempt, including an idle lazy worker's rounds before it sleeps, so it should be cheap.
//  - The part is destroyed after the workers have stopped.
// A part never affects correctness: whichever victims it names, no task is lost or run twice (the deque's
// protocol, docs/protocols/deque.md, holds for any thief and victim). It affects only how fast work spreads.

#include <concepts>
#include <cstddef>
#include <type_traits>

#include "forkjoin/topology.hpp"

namespace fj {

template <class V>
concept victim_part =
    std::is_class_v<V> && std::constructible_from<V, std::size_t, std::size_t, const topology&> &&
    std::is_nothrow_destructible_v<V> && requires(V& v) {
      { v() } noexcept -> std::convertible_to<std::size_t>;
    };

}  // namespace fj
