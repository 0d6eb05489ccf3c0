#include <cstdint>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <thread>

#include "child_protocol.hpp"
#include "machine.hpp"
#include "options.hpp"
#include "plan.hpp"
#include "registry.hpp"
#include "report/report.hpp"
#include "run_one.hpp"
#include "runner.hpp"
#include "statistics.hpp"

namespace {

std::string command_line_of(std::span<char* const> arguments) {
  std::string text = "fj-bench";
  for (const char* argument : arguments) {
    text += ' ';
    text += argument;
  }
  return text;
}

std::string now_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  ::gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &parts);
  return text;
}

void list_registry(const fjb::options& chosen) {
  const fjb::scale size = chosen.size;
  const auto sizes = fjb::checked_sizes(chosen);
  std::printf("workloads (parameters at scale %s%s; N is the size --size sets):\n",
              std::string(fjb::name_of(size)).c_str(), sizes.empty() ? "" : " and the --size given");
  for (const fjb::workload* bench : fjb::registered_workloads()) {
    const auto given = sizes.find(bench->info.name);
    const std::int64_t n = given == sizes.end() ? bench->info.size.at(size) : given->second;
    std::printf("  %-10s %-54s %s%s\n", std::string(bench->info.name).c_str(),
                bench->info.parameters(size, n).c_str(), std::string(bench->info.description).c_str(),
                bench->info.runs_at(size) ? "" : " (not run by default at this scale)");
    std::printf("  %-10s N=%lld%s: %s, %lld..%lld\n", "", static_cast<long long>(n),
                given == sizes.end() ? "" : " (--size)", std::string(bench->info.size.meaning).c_str(),
                static_cast<long long>(bench->info.size.min), static_cast<long long>(bench->info.size.max));
  }
  std::printf("implementations:\n");
  for (const auto& implementation : fjb::known_implementations()) {
    std::printf("  %-10s %s%s\n", std::string(implementation.name).c_str(),
                std::string(implementation.description).c_str(),
                fjb::implementation_built(implementation.name) ? "" : " (not built in)");
  }
}

void write_results(const fjb::report& data, const std::filesystem::path& directory) {
  std::filesystem::create_directories(directory);
  fjb::write_csv(directory / "runs.csv", data);
  fjb::write_json(directory / "results.json", data);
  const auto plots = fjb::write_plots(directory, data);
  fjb::write_markdown(directory / "report.md", data, plots);
  std::printf("\nresults written to %s/ (runs.csv, results.json, report.md, %zu plots)\n", directory.c_str(),
              plots.size());
}

int run_suite(const fjb::options& chosen, std::span<char* const> arguments) {
  const fjb::machine_info machine = fjb::describe_machine();
  fjb::report data{command_line_of(arguments),
                   now_utc(),
                   machine,
                   fjb::make_plan(chosen, std::max(1U, machine.cores)),
                   {},
                   {}};
  fjb::print_header(stdout, data);
  std::printf("running %zu measurements, each in its own process\n\n", fjb::measurement_count(data.chosen));
  std::fflush(stdout);
  data.runs = fjb::run_plan(data.chosen);
  data.summaries = fjb::summarise(data.chosen, data.runs);
  fjb::print_table(stdout, data);
  write_results(data, chosen.out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::span<char* const> arguments(argv + 1, static_cast<std::size_t>(argc - 1));
  if (!arguments.empty() && arguments[0] == fjb::run_one_flag) {
    return fjb::run_one(arguments.subspan(1));
  }
  try {
    const fjb::options chosen = fjb::parse_options(arguments);
    if (chosen.help) {
      std::fputs(fjb::help_text().c_str(), stdout);
      return 0;
    }
    if (chosen.list) {
      list_registry(chosen);
      return 0;
    }
    return run_suite(chosen, arguments);
  } catch (const fjb::usage_error& error) {
    std::fprintf(stderr, "fj-bench: %s\n(see fj-bench --help)\n", error.what());
    return 2;
  } catch (const fjb::benchmark_failed& error) {
    std::fprintf(stderr,
                 "\n\n*****************************************************************\n"
                 "*** fj-bench: BENCHMARK FAILED: %s\n"
                 "*** No results were written: a wrong or missing answer is never a number.\n"
                 "*****************************************************************\n",
                 error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fj-bench: %s\n", error.what());
    return 1;
  }
}
