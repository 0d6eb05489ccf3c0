#pragma once
// The lazy pool's accounting (docs/protocols/sleep.md "The lazy pool's rule"): active_ counts workers running
// a task, thieves_[g] the awake workers of NUMA group g looking for work. While any worker is active, the
// last awake thief of a group stays awake (must_stay_awake), and a group left without one gets a thief woken
// (become_active). The busy and unit pools keep no accounting (`on` false): every call is then a no-op.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace fj::detail {

class lazy_accounting {
 public:
  lazy_accounting(bool on, std::size_t groups)
      : on_(on), groups_(groups), thieves_(std::make_unique<group_count[]>(groups)) {}

  [[nodiscard]] std::size_t groups() const noexcept { return groups_; }

  // Counts a worker of `group` as an awake thief: at construction, before the workers start.
  void add_worker(std::size_t group) noexcept {
    // relaxed: published to the workers by thread creation.
    thieves_[group].n.fetch_add(1, std::memory_order_relaxed);
  }

  // A worker of `group` found work. wake_a_thief(g) is called for each group g that may have no awake thief
  // now (the pool wakes one of its sleeping workers, not the caller).
  template <class WakeAThief>
  void become_active(std::size_t group, WakeAThief wake_a_thief) noexcept {
    if (!on_) return;
    // seq_cst: these two, the loads in must_stay_awake() and the fences in wake_a_thief() and sleep() make
    // sure that a group's last thief either stays awake or is woken (sleep.md "The lazy pool's rule").
    bool const pool_was_idle = active_.fetch_add(1, std::memory_order_seq_cst) == 0;
    if (thieves_[group].n.fetch_sub(1, std::memory_order_seq_cst) == 1) wake_a_thief(group);
    // Other groups may be all asleep: their last thief slept while nothing was active. Wake one in each.
    if (pool_was_idle) {
      for (std::size_t g = 0; g < groups_; ++g) {
        // seq_cst: as above.
        if (g != group && thieves_[g].n.load(std::memory_order_seq_cst) == 0) wake_a_thief(g);
      }
    }
  }

  // The task the worker ran has returned control to it: it looks for work again.
  void become_thief(std::size_t group) noexcept {
    if (!on_) return;
    // seq_cst: as in become_active().
    thieves_[group].n.fetch_add(1, std::memory_order_seq_cst);
    active_.fetch_sub(1, std::memory_order_seq_cst);
  }

  // The lazy rule: while any worker is active, the last awake thief of a group stays awake.
  [[nodiscard]] bool must_stay_awake(std::size_t group) const noexcept {
    if (!on_) return false;
    // seq_cst: see become_active().
    return thieves_[group].n.load(std::memory_order_seq_cst) == 0 &&
           active_.load(std::memory_order_seq_cst) > 0;
  }

  // Workers running a task now: a hint for the algorithms' calls from ordinary code
  // (pool_core::room_beside_caller).
  [[nodiscard]] std::int64_t active() const noexcept {
    // relaxed: a stale count only makes a piece split once too often or ask again one block later; nothing is
    // published through it.
    return active_.load(std::memory_order_relaxed);
  }

  // A thief of `group` is about to sleep (or to decide not to): it stops counting as awake ...
  void leave(std::size_t group) noexcept {
    if (on_) thieves_[group].n.fetch_sub(1, std::memory_order_seq_cst);  // seq_cst: see become_active()
  }
  // ... and counts again once it is back.
  void come_back(std::size_t group) noexcept {
    if (on_) thieves_[group].n.fetch_add(1, std::memory_order_seq_cst);  // seq_cst: see become_active()
  }

 private:
  // Every steal and every return to the scheduler writes a group's count and active_: each on lines of its
  // own, so that groups do not slow each other down and the flags beside them are not invalidated.
  struct alignas(128) group_count {
    std::atomic<std::int64_t> n{0};
  };

  bool const on_;
  std::size_t const groups_;
  std::unique_ptr<group_count[]> thieves_;
  alignas(128) std::atomic<std::int64_t> active_{0};
};

}  // namespace fj::detail
