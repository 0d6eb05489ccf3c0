#pragma once
// fj::scratch<T>: a temporary array on the running worker's segmented stack (paper III-C): a portable alloca
// that never overflows the OS stack, freed when the handle goes out of scope. Allocation is a pointer bump.
//
//   fj::task<long> sum_of_children(int n) {
//     fj::scratch<long> partial(n);              // outside any fork-join scope
//     for (int i = 0; i < n; ++i) co_await fj::fork(&partial[i], child, i);
//     co_await fj::join;
//     co_return std::accumulate(partial.begin(), partial.end(), 0L);
//   }                                            // partial is freed here, after the join
//
// Rules (checked): create it inside a task; scratch arrays are freed in the reverse order of their creation
// (which C++ scopes give you); an array must not outlive a fork-join scope it was not created outside of,
// i.e. create it before forking and let it die after the join. Breaking a rule is reported when the array is
// freed: the process stops with a message (a destructor cannot throw, and continuing would corrupt the
// stack). An exception that unwinds the task between a fork and its join is not a breach: if the continuation
// was stolen, the array is freed at the implicit join instead (stack.md "Abandoned blocks").

#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <type_traits>

#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/segmented_stack.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "forkjoin/errors.hpp"

namespace fj {

template <class T>
class scratch {
  static_assert(alignof(T) <= detail::k_frame_align,
                "fj::scratch<T>: T is over-aligned for the segmented stack");
  static_assert(std::is_nothrow_destructible_v<T>, "fj::scratch<T>: T must have a noexcept destructor");

 public:
  // n value-initialised elements. Throws fj::not_in_worker_error outside a worker, std::bad_alloc if the
  // stack cannot grow, fj::stack_budget_error if growing it would exceed pool_options::stack_budget, or
  // whatever T's constructor throws (then nothing stays allocated).
  explicit scratch(std::size_t n) : stack_(detail::tls_stack), size_(n) {
    if (detail::tls_worker == nullptr) throw not_in_worker_error();
    if (n > max_size()) throw std::bad_array_new_length();
    void* raw = stack_->allocate(bytes());
    data_ = static_cast<T*>(raw);
    if constexpr (std::is_nothrow_default_constructible_v<T>) {
      std::uninitialized_value_construct_n(data_, n);
    } else {
      try {
        std::uninitialized_value_construct_n(data_, n);
      } catch (...) {
        stack_->deallocate(raw, bytes());
        throw;
      }
    }
  }

  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;

  ~scratch() {
    std::destroy_n(data_, size_);
    if (detail::tls_stack != stack_) [[unlikely]] {
      // The task's continuation was stolen since the array was made, and an exception unwinds the task before
      // its join: forked children may still have frames above the array on its stack, which another worker
      // may be using. The stack frees it when the join hands the stack back. Without an exception in flight
      // this is the misuse the rules forbid (the array outlives or undercuts a fork-join scope).
      if (std::uncaught_exceptions() == 0) misuse();
      stack_->abandon(data_, bytes());
      return;
    }
    // On the stack this worker is using, the array must be the last allocation: otherwise it is being freed
    // out of order.
    if (!stack_->is_last(data_, bytes())) [[unlikely]]
      misuse();
    stack_->deallocate(data_, bytes());
  }

  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }
  [[nodiscard]] std::span<T> span() noexcept { return {data_, size_}; }
  [[nodiscard]] std::span<const T> span() const noexcept { return {data_, size_}; }

  [[nodiscard]] static constexpr std::size_t max_size() noexcept {
    return (std::size_t{1} << 47) / sizeof(T);
  }

 private:
  // The elements rounded up to the stack's alignment, then room for the node that segmented_stack::abandon()
  // writes if the array dies on a thief: children still running write their results into the elements, so
  // the node must not overlap them. 16 bytes more per array; no cost on forks and joins.
  [[nodiscard]] std::size_t bytes() const noexcept {
    std::size_t const align = detail::k_frame_align;
    return (size_ * sizeof(T) + align - 1) / align * align + detail::segmented_stack::k_abandon_trailer_bytes;
  }

  [[noreturn, gnu::cold, gnu::noinline]] static void misuse() noexcept {
    detail::fatal(
        "an fj::scratch array was freed out of order, or across a fork-join scope (create scratch arrays "
        "before the first fork and let them die after the join)");
  }

  detail::segmented_stack* stack_;
  std::size_t size_;
  T* data_ = nullptr;
};

}  // namespace fj
