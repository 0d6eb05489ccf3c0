#pragma once
// The stack-memory bounds fj-memory checks and reports. Derivation: docs/verification/memory-bound.md.
//
// Symbols: c = stacklet header bytes, B0 = bottom stacklet bytes, M1 = the serial run's deepest stack in
// bytes (frames rounded to the frame alignment), N = the deepest path in frames, P = workers.

#include <forkjoin/detail/segmented_stack.hpp>

#include <cmath>
#include <cstddef>

namespace fjm {

inline constexpr double k_header_bytes =
    static_cast<double>(fj::detail::segmented_stack::k_stacklet_header_bytes);
inline constexpr double k_bottom_bytes =
    static_cast<double>(fj::detail::segmented_stack::k_first_stacklet_bytes);

// Our per-stack guarantee (stack.md "Memory bound"): a stack with M bytes in use holds at most
// 3 B0 + c log2(M + c) + 8M bytes. It also covers an empty stack, which holds at most 3 B0.
[[nodiscard]] inline double stack_bound(double used) {
  return 3 * k_bottom_bytes + k_header_bytes * std::log2(used + k_header_bytes) + 8 * used;
}

// Worst case over one root-to-leaf path of at most N frames and M1 bytes when every frame is on a stack of
// its own: sum over the frames of stack_bound(m_i) <= N (3 B0 + c log2(M1 / N + c)) + 8 M1 (Jensen on the
// log).
[[nodiscard]] inline double path_bound(double m1, double n) {
  return n * (3 * k_bottom_bytes + k_header_bytes * std::log2(m1 / n + k_header_bytes)) + 8 * m1;
}

// Theorem 2 from our guarantee: the live frames lie on at most P root-to-leaf paths (busy leaves),
// stack_bound is subadditive so splitting frames over more stacks never lowers it, and each worker holds at
// most two stacks without frames (its current one and its spare), 3 B0 each.
[[nodiscard]] inline double theorem2_ours(double p, double m1, double n) {
  return p * path_bound(m1, n) + 2 * p * 3 * k_bottom_bytes;
}

// The paper's Theorem 2, (2c + 3) P M1, with our header size. Reported, not checked: its Lemma 1 charges a
// stack holding one frame 2c + 3m bytes, but our bottom stacklet alone is B0 bytes (and Theorem 1's 4M does
// not hold, stack.md).
[[nodiscard]] inline double theorem2_paper(double p, double m1) { return (2 * k_header_bytes + 3) * p * m1; }

}  // namespace fjm
