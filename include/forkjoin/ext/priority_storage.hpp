#pragma once
// What a priority task storage is: the part of a scheduler that holds the tasks waiting to run, ordered by a
// priority, shared by a fixed number of workers. Two storages exist (ext/strict_priority_storage.hpp, one
// locked queue; ext/relaxed_priority_storage.hpp, the k-relaxed storage); a pool will take any type that
// models `priority_storage`. The protocol of the relaxed one is docs/protocols/priority.md.
//
// The contract, for a storage `S` made for `P` workers (worker indices 0..P-1, each used by one thread at a
// time):
//  - Priorities are doubles; a *lower* value is *more urgent*. A NaN priority is rejected with
//    fj::priority_error (below) before anything is stored; so is a worker index >= P.
//  - push(w, v, p): worker w adds the value v with priority p. Every value pushed is returned by exactly one
//    pop, on some worker, unless the storage is destroyed first (values are copied in and out; a storage
//    never owns what a value points to).
//  - pop(w): returns the most urgent value worker w can see, or nothing. What "can see" means is the
//    storage's relaxation: the strict storage sees everything; the relaxed one misses at most `relaxation`
//    values pushed by other workers. A worker always sees the values it pushed itself and has not lost to a
//    pop elsewhere, so a storage never strands a value while its pusher keeps popping.
//  - empty_hint(): a snapshot that may be stale by the time it returns; for deciding whether to look for
//    work, never for correctness.
//  - relaxation: a static constant, the number of values a pop may miss (0: strict; the largest size_t: no
//    ordering promise at all, as a plain work-stealing deque that ignores priorities would have).
//  - skip(w), optional: a storage whose workers each keep a view of what others pushed (the relaxed one)
//    moves worker w's view on without recording anything, for an index that pops only to take back its own
//    values (fj::priority_group's outside index); without it that view could hold memory for ever.
// A third storage (such as the plain deque) is written the same way: a class with these members, the
// constructor from the worker count, and the same error on bad input.

#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>

#include "forkjoin/errors.hpp"

namespace fj {

// A priority that is not a number, or a worker index outside the storage, was passed to a priority storage.
class priority_error : public error {
 public:
  explicit priority_error(const std::string& what) : error("fj: priority storage: " + what) {}
};

// What a priority storage can hold: values copied bit for bit (a task pointer, an index).
template <class T>
concept priority_value = std::is_trivially_copyable_v<T> && std::is_nothrow_default_constructible_v<T>;

template <class S>
concept priority_storage =
    priority_value<typename S::value_type> && std::constructible_from<S, std::size_t> &&
    requires(S& s, const S& cs, std::size_t worker, const typename S::value_type& value, double priority) {
      { S::relaxation } -> std::convertible_to<std::size_t>;
      { s.push(worker, value, priority) } -> std::same_as<void>;
      { s.pop(worker) } -> std::same_as<std::optional<typename S::value_type>>;
      { cs.empty_hint() } -> std::same_as<bool>;
      { cs.workers() } -> std::same_as<std::size_t>;
    };

namespace detail {

// The input checks every storage makes, in one place so that the messages agree. Out of line of the callers'
// hot paths: only reached on bad input.
[[noreturn]] [[gnu::cold]] inline void throw_bad_worker(std::size_t worker, std::size_t workers) {
  throw priority_error("worker index " + std::to_string(worker) + " is not below the worker count " +
                       std::to_string(workers));
}

[[noreturn]] [[gnu::cold]] inline void throw_nan_priority() {
  throw priority_error("the priority is NaN (lower values are more urgent; NaN is not ordered)");
}

inline void check_worker(std::size_t worker, std::size_t workers) {
  if (worker >= workers) [[unlikely]] {
    throw_bad_worker(worker, workers);
  }
}

inline void check_priority(double priority) {
  // NaN is the one double that is not equal to itself.
  if (priority != priority) [[unlikely]] {
    throw_nan_priority();
  }
}

}  // namespace detail

}  // namespace fj
