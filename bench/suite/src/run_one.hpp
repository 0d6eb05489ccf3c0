#pragma once

#include <span>

namespace fjb {

// The child side of child_protocol.hpp: runs one measurement and prints its result line.
// `arguments` are those after --run-one. Returns the process exit status.
[[nodiscard]] int run_one(std::span<char* const> arguments);

}  // namespace fjb
