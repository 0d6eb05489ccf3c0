// libFuzzer target for fj::submission_queue (include/forkjoin/ext/submission_queue.hpp). The input is an
// operation sequence, run on one thread; see tests/fuzz/README.md for the byte format.
//
// The items come from a fixed pool of nodes; only nodes not currently queued are pushed, and popped nodes
// are reused. The oracle is a FIFO of node indices split the way the queue documents it: items pushed since
// the consumer's last take ("shared", what push's return value reports on) and the batch it took. Checked:
// FIFO order, every item popped exactly once, empty(), and push returning true exactly when the shared list
// was empty.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>

#include "forkjoin/ext/submission_queue.hpp"

namespace {

struct node {
  node* next = nullptr;
  std::size_t id = 0;
};

constexpr std::size_t pool_size = 16;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "submission_queue_fuzz: %s\n", what);
  std::abort();
}

void check(bool ok, const char* what) {
  if (!ok) {
    fail(what);
  }
}

struct model {
  std::deque<std::size_t> batch;   // taken by the consumer, oldest first
  std::deque<std::size_t> shared;  // pushed since the consumer's last take, oldest first

  [[nodiscard]] bool empty() const { return batch.empty() && shared.empty(); }

  // The pop the queue documents: refill the batch from the shared list when it has run out.
  [[nodiscard]] bool pop(std::size_t& id) {
    if (batch.empty()) {
      batch.swap(shared);
    }
    if (batch.empty()) {
      return false;
    }
    id = batch.front();
    batch.pop_front();
    return true;
  }
};

// One operation byte: the top two bits choose the operation, the low four a node (push) or a count (pop).
//   00, 01  push node (b & 15), or the next free node after it if that one is queued; nothing if none is free
//   10      pop (b & 3) + 1 times
//   11      push (b & 15) + 1 free nodes in a row, then pop once
void run(const std::uint8_t* data, std::size_t size) {
  std::array<node, pool_size> pool{};
  std::array<bool, pool_size> queued{};
  for (std::size_t i = 0; i < pool_size; ++i) {
    pool[i].id = i;
  }
  fj::submission_queue<node> q;
  model m;

  auto push_free_from = [&](std::size_t start) {
    for (std::size_t k = 0; k < pool_size; ++k) {
      const std::size_t i = (start + k) % pool_size;
      if (!queued[i]) {
        const bool was_empty = m.shared.empty();
        check(q.push(&pool[i]) == was_empty,
              "push's return value disagrees with the shared list's emptiness");
        queued[i] = true;
        m.shared.push_back(i);
        return;
      }
    }
  };
  auto pop_once = [&] {
    node* got = q.pop();
    std::size_t expected = 0;
    if (!m.pop(expected)) {
      check(got == nullptr, "pop returned an item from an empty queue");
      return;
    }
    check(got != nullptr, "pop returned nothing from a non-empty queue");
    check(got >= pool.data() && got < pool.data() + pool_size, "pop returned a pointer outside the pool");
    check(got->id == expected, "pop broke FIFO order");
    check(queued[got->id], "pop returned an item that was not queued");
    queued[got->id] = false;
  };

  for (std::size_t i = 0; i < size; ++i) {
    const std::uint8_t b = data[i];
    switch (b >> 6U) {
      case 0:
      case 1: push_free_from(b & 15U); break;
      case 2:
        for (std::size_t n = (b & 3U) + 1U; n > 0; --n) {
          pop_once();
        }
        break;
      default:
        for (std::size_t n = (b & 15U) + 1U; n > 0; --n) {
          push_free_from(b & 15U);
        }
        pop_once();
        break;
    }
    check(q.empty() == m.empty(), "empty() disagrees with the oracle");
  }

  // Drain: what is left comes out in order, each item once, and then the queue is empty.
  while (!m.empty()) {
    pop_once();
  }
  check(q.pop() == nullptr, "pop after the drain returned an item");
  check(q.empty(), "empty() is false after the drain");
  for (std::size_t i = 0; i < pool_size; ++i) {
    check(!queued[i], "an item was never popped");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  run(data, size);
  return 0;
}
