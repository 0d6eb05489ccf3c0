#include "measure.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "child_process.hpp"

namespace fjm {
namespace {

template <class Pool>
run_result run_on(Pool& pool, const run_request& request) {
  // Workers start with stacks that hold no stacklet, so the peak from here on is this run's alone.
  fj::detail::stack_memory::reset_peak();
  const std::int64_t answer = run_workload(pool, request.work, request.size);
  run_result result;
  result.stack_peak_bytes = fj::detail::stack_memory::peak();
  for (const fj::worker_stats& s : pool.stats()) result.steals += s.steals;
  const std::int64_t expected = expected_answer(request.work, request.size);
  if (answer != expected) {
    std::fprintf(stderr, "fj-memory: WRONG ANSWER for %s(%d): %lld, expected %lld\n",
                 std::string(workload_name(request.work)).c_str(), request.size,
                 static_cast<long long>(answer), static_cast<long long>(expected));
    std::exit(2);
  }
  return result;
}

run_result run_here(const run_request& request) {
  if (request.probe) enable_probe();
  run_result result;
  switch (request.pool) {
    case pool_kind::unit: {
      fj::unit_pool pool;
      result = run_on(pool, request);
      break;
    }
    case pool_kind::busy: {
      fj::busy_pool pool(request.workers);
      result = run_on(pool, request);
      break;
    }
    case pool_kind::lazy: {
      fj::lazy_pool pool(request.workers);
      result = run_on(pool, request);
      break;
    }
  }
  if (request.probe) result.profile = probe_result();
  return result;
}

std::vector<std::string> child_arguments(const run_request& r) {
  return {"--run-one",
          std::string(workload_name(r.work)),
          pool_name(r.pool),
          std::to_string(r.workers),
          std::to_string(r.size),
          r.probe ? "probe" : "no-probe"};
}

std::size_t field(const std::string& text, std::string_view key) {
  const std::string needle = std::string(key) + "=";
  const std::size_t at = text.find(needle);
  if (at == std::string::npos) throw std::runtime_error("fj-memory: child output lacks " + needle);
  return static_cast<std::size_t>(std::strtoull(text.c_str() + at + needle.size(), nullptr, 10));
}

}  // namespace

const char* pool_name(pool_kind k) noexcept {
  switch (k) {
    case pool_kind::unit: return "unit";
    case pool_kind::busy: return "busy";
    case pool_kind::lazy: return "lazy";
  }
  return "?";
}

bool parse_pool(const std::string& text, pool_kind& out) noexcept {
  for (pool_kind k : {pool_kind::unit, pool_kind::busy, pool_kind::lazy}) {
    if (text == pool_name(k)) {
      out = k;
      return true;
    }
  }
  return false;
}

int run_one(const std::vector<std::string>& arguments) {
  run_request request;
  if (arguments.size() != 5 || !parse_workload(arguments[0], request.work) ||
      !parse_pool(arguments[1], request.pool)) {
    std::fprintf(stderr, "fj-memory: bad --run-one arguments\n");
    return 1;
  }
  request.workers = static_cast<std::size_t>(std::strtoull(arguments[2].c_str(), nullptr, 10));
  request.size = std::atoi(arguments[3].c_str());
  request.probe = arguments[4] == "probe";
  if (request.probe && request.pool != pool_kind::unit) {
    std::fprintf(stderr, "fj-memory: the probe needs the single worker of unit_pool\n");
    return 1;
  }
  const run_result r = run_here(request);
  std::printf("stack_peak=%zu steals=%llu max_used=%zu max_frames=%zu\n", r.stack_peak_bytes,
              static_cast<unsigned long long>(r.steals), r.profile.max_used_bytes, r.profile.max_frames);
  return 0;
}

run_result measure(const run_request& request) {
  const std::vector<std::string> arguments = child_arguments(request);
  const fjb::child_outcome child = fjb::run_self(arguments);
  if (child.killed_by_signal || child.exit_status != 0) {
    std::ostringstream what;
    what << "fj-memory: measurement child ";
    for (std::size_t i = 1; i < arguments.size(); ++i) what << arguments[i] << ' ';
    if (child.killed_by_signal) {
      what << "killed by signal " << child.signal;
    } else {
      what << "exited with status " << child.exit_status;
    }
    throw std::runtime_error(what.str());
  }
  const std::string& output = child.output;
  run_result result;
  result.stack_peak_bytes = field(output, "stack_peak");
  result.steals = field(output, "steals");
  result.profile.max_used_bytes = field(output, "max_used");
  result.profile.max_frames = field(output, "max_frames");
  result.max_rss_kib = child.max_rss_kib;
  return result;
}

}  // namespace fjm
