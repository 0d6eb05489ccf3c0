#pragma once
// A lock-free multi-producer single-consumer FIFO of intrusive items: each worker owns one and drains it; any
// thread may push (the paper's Section III-D1, explicit scheduling). The protocol and a proof sketch are in
// docs/protocols/sleep.md §"Submission queue".

#include <atomic>
#include <concepts>
#include <cstddef>

namespace fj {

// What a submission queue can hold: items that carry their own link, a plain `T* next` member, so that a push
// never allocates. The queue owns the link from push until pop returns the item; nobody else may touch it.
template <class T>
concept submission_item = requires(T& item) { requires std::same_as<decltype(item.next), T*>; };

// Producers push onto a lock-free LIFO list (a CAS on `head_`); the consumer takes the whole list at once
// with an exchange and reverses it into a private FIFO batch that it pops without atomics.
//
// Guarantees: push is lock-free (its CAS fails only when another push or the consumer's take succeeded),
// pop is wait-free (one exchange, then a reversal bounded by the batch). FIFO: if one push finishes before
// another starts (in particular, two pushes by one thread), the first item is popped first. ABA cannot
// happen: producers never read through `head_`, they only link their item to it, so a CAS that succeeds
// against a recycled pointer still links to the current first item.
//
// Unlike Vyukov's intrusive MPSC queue (one exchange per push, then the link is written), a preempted
// producer never leaves a half-linked list that hides later items from the consumer; the price is a CAS loop
// in push and the consumer's reversal.
template <submission_item T>
class submission_queue {
 public:
  submission_queue() noexcept = default;
  submission_queue(const submission_queue&) = delete;
  submission_queue& operator=(const submission_queue&) = delete;
  submission_queue(submission_queue&&) = delete;
  submission_queue& operator=(submission_queue&&) = delete;
  // The queue does not own its items: drain it (pop until nullptr) before destroying it.
  ~submission_queue() = default;

  // Any thread. Appends item (not null, not in any queue). Returns true if the shared list was empty before,
  // that is if this push made it non-empty: then the pusher is the one that must wake the consumer
  // (sleep.md §"Submission queue": exactly one pusher sees each empty-to-non-empty transition).
  // LIFETIME: after the CAS the consumer may pop, run and free *item; nothing of it is read afterwards.
  [[nodiscard]] bool push(T* item) noexcept {
    // relaxed: only used as the expected value of the CAS below, never dereferenced.
    T* first = head_.load(std::memory_order_relaxed);
    do {
      item->next = first;
      // release on success: pairs with the acquire exchange in refill(): publishes item->next and whatever
      // the pusher wrote into *item. relaxed on failure: we retry with the new value and read nothing through
      // it.
    } while (!head_.compare_exchange_weak(first, item, std::memory_order_release, std::memory_order_relaxed));
    return first == nullptr;
  }

  // Consumer only. Removes and returns the oldest item, or nullptr if the queue looks empty.
  [[nodiscard]] T* pop() noexcept {
    if (batch_ == nullptr && !refill()) {
      return nullptr;
    }
    T* item = batch_;
    batch_ = item->next;
    item->next = nullptr;
    return item;
  }

  // Consumer only. Whether pop() would return nullptr now: no atomic read-modify-write, one load of a shared
  // cache line that stays in the shared state until a push writes it. For a polling loop, and for the
  // re-check of the sleep protocol (sleep.md §"Submission queue").
  [[nodiscard]] bool empty() const noexcept {
    // relaxed: a test only; the items are acquired by the exchange in refill(). When this load must see a
    // push (the sleep protocol's re-check), the event count's acquire orders it after that push.
    return batch_ == nullptr && head_.load(std::memory_order_relaxed) == nullptr;
  }

 private:
  // Moves the shared list, reversed into oldest-first order, to the private batch. False if it was empty.
  bool refill() noexcept {
    // relaxed: avoids the exchange (which takes the cache line exclusive) when there is nothing to take.
    if (head_.load(std::memory_order_relaxed) == nullptr) {
      return false;
    }
    // acquire: pairs with the release CAS of every push in the list (each later push's CAS is a
    // read-modify-write, so it continues the release sequences of the earlier ones).
    T* newest = head_.exchange(nullptr, std::memory_order_acquire);
    // Never null: only this consumer empties the list, and it was not empty above. Checked all the same, for
    // the static analyzer, which cannot know that (it reported a null batch_ dereferenced in pop()).
    if (newest == nullptr) {
      return false;
    }
    T* oldest_first = nullptr;
    while (newest != nullptr) {
      T* rest = newest->next;
      newest->next = oldest_first;
      oldest_first = newest;
      newest = rest;
    }
    batch_ = oldest_first;
    return true;
  }

  // Producers' side: the newest pushed item, linked towards older ones. On its own cache line so that pushes
  // do not invalidate the consumer's private batch pointer.
  alignas(64) std::atomic<T*> head_{nullptr};
  // Consumer's side: the oldest item not yet popped, linked towards newer ones.
  alignas(64) T* batch_ = nullptr;
};

}  // namespace fj
