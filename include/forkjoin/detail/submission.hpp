#pragma once
// An item of a worker's submission queue: a suspended task that some thread hands to that worker (a root from
// sync_wait, or a task moving itself with resume_on). The node lives in the submitter's storage (sync_wait's
// record, or the awaiter in the moving task's frame) until the worker pops it.

#include "forkjoin/detail/frame.hpp"

namespace fj::detail {

struct submission {
  submission* next = nullptr;  // the queue's link (ext/submission_queue.hpp)
  frame* task = nullptr;       // resumed by the worker, on the task's own stack
};

}  // namespace fj::detail
