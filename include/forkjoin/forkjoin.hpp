#pragma once
// forkjoin: fine-grained strict fork-join parallelism: tasks on C++20 coroutines (continuation stealing) and
// plain functions spawned with fj::scope (child stealing), on the same pools.
// See README.md for a first example and docs/protocols/ for how the runtime works.

#include "forkjoin/basic_pool.hpp"
#include "forkjoin/busy_pool.hpp"
#include "forkjoin/default_pool.hpp"
#include "forkjoin/errors.hpp"
#include "forkjoin/ext/priority_part.hpp"
#include "forkjoin/fork.hpp"
#include "forkjoin/join.hpp"
#include "forkjoin/lazy_pool.hpp"
#include "forkjoin/parallel_invoke.hpp"
#include "forkjoin/pool_options.hpp"
#include "forkjoin/priority_group.hpp"
#include "forkjoin/recursive.hpp"
#include "forkjoin/resume_on.hpp"
#include "forkjoin/scope.hpp"
#include "forkjoin/scratch.hpp"
#include "forkjoin/sync_wait.hpp"
#include "forkjoin/task.hpp"
#include "forkjoin/unit_pool.hpp"
