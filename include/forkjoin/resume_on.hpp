#pragma once
// Explicit scheduling (paper III-D1): a running task moves itself to a chosen worker, or to another pool.
//   co_await fj::resume_on(pool, k);   // continue on worker k of `pool`
//   co_await fj::resume_on(pool);      // continue on some worker of `pool` (stays put if already on one)
// The task is suspended, handed over together with its stack, and resumed there; its worker goes back to
// other work. To worker k it goes through k's own submission queue (lock-free), so it waits for k even while
// k is busy or blocked; to "some worker" it goes through the pool's shared queue, which every worker takes
// from before it steals. Rules: call it outside a fork-join scope (after a join: a task whose continuation
// has been stolen since its last join cannot move and gets fj::open_scope_error). Moving onto a pool that is
// shutting down throws fj::pool_closed_error at the co_await (the task stays where it was); once a task of a
// root has moved onto a pool, that pool's shutdown (and destructor) waits for the root to finish, because the
// root's frames may continue on its workers from then on; so a task of that root must not shut the pool down
// or destroy it (from any worker, of any pool): it would wait for itself. Only the pool's own workers are
// detected (fj::deadlock_error).
//   fj::worker_index()                 // index of the worker running the calling task

#include <coroutine>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "forkjoin/detail/fatal.hpp"
#include "forkjoin/detail/frame.hpp"
#include "forkjoin/detail/pool_core.hpp"
#include "forkjoin/detail/stack_ownership.hpp"
#include "forkjoin/detail/submission.hpp"
#include "forkjoin/detail/worker_context.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/sync_wait.hpp"
#include "forkjoin/task.hpp"

namespace fj {

namespace detail {

class [[nodiscard]] resume_on_awaitable : public runtime_awaitable {
 public:
  resume_on_awaitable(pool_core& pool, std::optional<std::size_t> worker) : pool_(&pool), worker_(worker) {
    if (worker && *worker >= pool.size()) {
      throw invalid_config_error("resume_on: worker " + std::to_string(*worker) + " of a pool of " +
                                 std::to_string(pool.size()));
    }
  }

  [[nodiscard]] static constexpr bool await_ready() noexcept { return false; }

  template <class P>
  bool await_suspend(std::coroutine_handle<P> h) {
    static_assert(is_task_promise<P>,
                  "fj::resume_on can only be awaited inside a coroutine that returns fj::task<T>");
    frame* const self = &h.promise();
    if (self->state.steals != 0) {
      throw open_scope_error("fj::resume_on");
    }
    worker_context* const here = tls_worker;
    if (here->pool == pool_ && (!worker_ || here->index == *worker_)) return false;  // already there
    // Room for the ancestors' continuations that may sit in this worker's deque (at most one per ancestor):
    // may throw std::bad_alloc, like the next step, before anything has moved. An empty deque stays empty
    // until this worker pushes again, so then there is nothing to make room for.
    std::vector<std::coroutine_handle<>> left;
    std::size_t const room = tls_owner.empty() ? 0 : ancestors(self);
    left.reserve(room);
    // Throws fj::pool_closed_error if the target pool is shutting down; nothing has moved yet, so the task
    // continues here with the exception at its co_await.
    root_of(self).hold_open(pool_->inflight());
    node_.task = self;
    pool_core* const pool = pool_;
    // The task has not been stolen since its last join, so its frame is on this worker's stack; the target
    // worker adopts the stack from `home` (stack.md rule 7).
    self->home = tls_stack;
    if (room != 0) write_homes_of_left_behind(left, room);
    // The target worker adopts the task's stack (stack.md rule 5); we continue on an empty one.
    give_up_stack();
    // LIFETIME: after the push inside submit_to the target may resume the task and this awaiter (in its
    // frame) may be gone; so may the target pool, once the task's root has finished (its destructor waits for
    // submit_to to return: pool_engine::submitters_, src/pool_engine.hpp).
    if (worker_) {
      pool->submit_to(*worker_, &node_);
    } else {
      pool->submit_any(&node_);
    }
    return true;
  }

  static constexpr void await_resume() noexcept {}

 private:
  // The completion record of the root whose tree `f` belongs to. Every ancestor of a running task is alive
  // (strict fork-join), so the walk is safe; resume_on is rare, so its length does not matter.
  static root_base& root_of(frame* f) noexcept {
    while (f->state.kind != task_kind::root) f = frame_of(f->parent());
    return *f->root;
  }

  // The number of frames above `f` up to its root.
  static std::size_t ancestors(frame* f) noexcept {
    std::size_t n = 0;
    for (; f->state.kind != task_kind::root; f = frame_of(f->parent())) ++n;
    return n;
  }

  // The continuations still in this worker's deque are the moving task's ancestors' (the scheduler's
  // resume_left_behind, src/scheduler.cpp). Those not stolen since their last join and not left behind before
  // live on the stack that leaves with the task; a thief that takes one later would read this worker's next
  // stack as their home. So each is taken out (a pop makes it ours), given its home and marked left_behind,
  // and all are put back in their order, still stealable (stack.md "Where a frame lives"). `left` has room
  // for `room` of them, the number of ancestors.
  static void write_homes_of_left_behind(std::vector<std::coroutine_handle<>>& left,
                                         std::size_t room) noexcept {
    segmented_stack* const stack = tls_stack;
    while (std::optional<std::coroutine_handle<>> const c = tls_owner.pop()) {
      frame* const f = frame_of(*c);
      // One left behind by an earlier move lives on the stack that left then, not on ours.
      if (f->state.steals == 0 && !f->state.left_behind) {
        f->home = stack;
        f->state.left_behind = true;
      }
      if (left.size() == room) internal_error("resume_on: a deque item that is not an ancestor");
      left.push_back(*c);
    }
    // Oldest first, as they were: the deque gives them back newest first.
    for (auto it = left.rbegin(); it != left.rend(); ++it) {
      // The deque held them a moment ago and has not shrunk, so the push needs no allocation and cannot fail.
      if (!tls_owner.try_push(*it)) internal_error("resume_on: a continuation could not be put back");
    }
  }

  pool_core* pool_;
  std::optional<std::size_t> worker_;
  submission node_;
};

}  // namespace detail

template <scheduler Pool>
[[nodiscard]] detail::resume_on_awaitable resume_on(Pool& pool, std::size_t worker) {
  return detail::resume_on_awaitable(pool.core(), worker);
}

template <scheduler Pool>
[[nodiscard]] detail::resume_on_awaitable resume_on(Pool& pool) {
  return detail::resume_on_awaitable(pool.core(), std::nullopt);
}

// The index, within its pool, of the worker running the calling code. Throws fj::not_in_worker_error on other
// threads.
[[nodiscard]] inline std::size_t worker_index() {
  detail::worker_context* w = detail::tls_worker;
  if (w == nullptr) throw not_in_worker_error();
  return w->index;
}

// Whether the calling code runs on one of `pool`'s workers.
template <scheduler Pool>
[[nodiscard]] bool runs_on(Pool& pool) noexcept {
  detail::worker_context* w = detail::tls_worker;
  return w != nullptr && w->pool == &pool.core();
}

}  // namespace fj
