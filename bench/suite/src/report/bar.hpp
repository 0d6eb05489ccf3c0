#pragma once

#include <string>
#include <vector>

#include "report.hpp"

namespace fjb {

// The comparison with libfork's and oneTBB's reference figures (issue 4): T/Ts at P = 1 and 2 for the
// workloads that have a reference, ours next to theirs. Rendered by the terminal table and the Markdown.
struct text_table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

[[nodiscard]] text_table bar_table(const report& data);

// One line on peak memory of the reference workload (T3L) at two workers, or empty if it was not run.
[[nodiscard]] std::string bar_memory_line(const report& data);

}  // namespace fjb
