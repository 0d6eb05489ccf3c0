#include "runner.hpp"

#include <string>

#include "child_process.hpp"
#include "child_protocol.hpp"
#include "progress.hpp"
#include "stopwatch.hpp"

namespace fjb {
namespace {

std::string describe(const cell& measured) {
  return std::string(measured.bench->info.name) + " / " + std::string(measured.implementation->name) +
         " / P=" + std::to_string(measured.workers);
}

std::string failure_of(const child_outcome& outcome) {
  if (outcome.killed_by_signal) {
    return "killed by signal " + std::to_string(outcome.signal);
  }
  if (outcome.exit_status == exit_wrong_answer) {
    return "WRONG ANSWER (see the message above)";
  }
  return "exit status " + std::to_string(outcome.exit_status) + " (see the message above)";
}

measurement measure(const cell& measured, const plan& chosen, unsigned repetition) {
  const std::int64_t n = size_of(chosen, *measured.bench);
  const child_outcome outcome =
      run_self({std::string(run_one_flag), std::string(measured.bench->info.name),
                std::string(measured.implementation->name), std::to_string(measured.workers),
                std::string(name_of(chosen.size)), std::to_string(n)});
  const auto result = parse_result_line(outcome.output);
  if (outcome.killed_by_signal || outcome.exit_status != exit_measured || !result) {
    throw benchmark_failed(describe(measured) + ": " + failure_of(outcome));
  }
  return {std::string(measured.bench->info.name),
          std::string(measured.implementation->name),
          measured.workers,
          repetition,
          n,
          result->seconds,
          outcome.max_rss_kib,
          result->steals,
          result->work};
}

}  // namespace

std::vector<measurement> run_plan(const plan& chosen) {
  std::vector<measurement> results;
  progress shown(measurement_count(chosen));
  for (const workload* bench : chosen.workloads) {
    const auto cells = cells_of(*bench, chosen);
    const double elapsed = seconds_taken([&] {
      for (unsigned repetition = 1; repetition <= chosen.repetitions; ++repetition) {
        for (const cell& measured : cells) {
          shown.starting(measured, repetition, chosen.repetitions);
          results.push_back(measure(measured, chosen, repetition));
        }
      }
    });
    shown.workload_done(*bench, elapsed);
  }
  return results;
}

}  // namespace fjb
