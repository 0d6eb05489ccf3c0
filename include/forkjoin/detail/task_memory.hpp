#pragma once
// Memory for fj::priority_group's tasks (priority_group.hpp): one small heap object per spawn, freed by
// whichever worker ran it. Each thread keeps the blocks it frees in its own lists, by size class, and its
// next spawns reuse them: no lock, no atomic, no call into the allocator while a search spawns about as many
// tasks as it finishes (docs/performance.md "Search workloads"). A thread keeps at most k_keep blocks per
// class and gives the rest, and all of them when it exits, back to ::operator delete. Blocks move between
// threads freely (freed where the task ran), so a thread that only spawns allocates while one that only runs
// caches. Over-aligned or large tasks, and sanitizer builds (so that AddressSanitizer sees every use after
// free), go to ::operator new and delete directly.

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>

#include "forkjoin/detail/sanitizers.hpp"

namespace fj::detail {

inline constexpr bool task_memory_cached = !asan_build && !tsan_build;

class task_memory {
 public:
  // Sizes are rounded up to a multiple of the allocator's own granule, so that a cached block takes no more
  // memory than operator new would give the task (a search's frontier may hold many tasks at once).
  static constexpr std::size_t k_granule = 16;
  static constexpr std::size_t k_classes = 16;  // up to 256 bytes
  static constexpr std::size_t k_keep = 512;    // blocks a thread keeps per class

  template <std::size_t Align>
  [[nodiscard]] static void* allocate(std::size_t bytes) {
    if constexpr (Align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
      return ::operator new(bytes, std::align_val_t{Align});
    } else {
      if (task_memory_cached && bytes <= k_granule * k_classes) {
        lists& mine = lists_of_this_thread();
        std::size_t const c = size_class(bytes);
        if (block* b = mine.head[c]; b != nullptr) {
          mine.head[c] = b->next;
          --mine.count[c];
          return b;
        }
        return ::operator new(k_granule*(c + 1));
      }
      return ::operator new(bytes);
    }
  }

  template <std::size_t Align>
  static void deallocate(void* p, std::size_t bytes) noexcept {
    if constexpr (Align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
      ::operator delete(p, bytes, std::align_val_t{Align});
    } else {
      if (task_memory_cached && bytes <= k_granule * k_classes) {
        lists& mine = lists_of_this_thread();
        std::size_t const c = size_class(bytes);
        if (mine.count[c] < k_keep) {
          mine.head[c] = ::new (p) block{mine.head[c]};
          ++mine.count[c];
          return;
        }
        ::operator delete(p, k_granule*(c + 1));
        return;
      }
      ::operator delete(p, bytes);
    }
  }

 private:
  struct block {
    block* next;
  };

  struct lists {
    lists() = default;
    lists(const lists&) = delete;
    lists& operator=(const lists&) = delete;
    lists(lists&&) = delete;
    lists& operator=(lists&&) = delete;
    ~lists() {
      for (std::size_t c = 0; c < k_classes; ++c) {
        while (block* b = head[c]) {
          head[c] = b->next;
          ::operator delete(b, k_granule*(c + 1));
        }
      }
    }
    std::array<block*, k_classes> head{};
    std::array<std::uint32_t, k_classes> count{};
  };

  static constexpr std::size_t size_class(std::size_t bytes) noexcept {
    return bytes == 0 ? 0 : (bytes - 1) / k_granule;
  }

  static lists& lists_of_this_thread() noexcept {
    thread_local lists mine;
    return mine;
  }
};

}  // namespace fj::detail
