// fj-sleep: what sleeping costs and saves. For fj::lazy_pool (and fj::busy_pool for comparison):
//   - CPU time the pool's workers use while the pool sits idle for a few seconds (target for lazy_pool: < 1 %
//   of
//     one core);
//   - wake-up latency: from an outside thread submitting a task (sync_wait) to the task starting, with the
//     workers given time to fall asleep before each submission (median and 99th percentile).
//
//   fj-sleep [--idle-seconds S] [--samples N] [--workers W]

#include <sys/resource.h>
#include <forkjoin/forkjoin.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

fj::task<clock_type::time_point> started_at() { co_return clock_type::now(); }

template <class Pool>
void measure(const char* name, std::size_t workers, double idle_seconds, int samples) {
  Pool pool(workers);
  (void)fj::sync_wait(pool, started_at);  // workers up and running
  std::this_thread::sleep_for(std::chrono::milliseconds(100));

  double const cpu0 = process_cpu_seconds();
  auto const wall0 = clock_type::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(idle_seconds));
  double const cpu = process_cpu_seconds() - cpu0;
  double const wall = std::chrono::duration<double>(clock_type::now() - wall0).count();

  std::vector<double> latency_us;
  latency_us.reserve(static_cast<std::size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // let the workers fall asleep again
    auto const submitted = clock_type::now();
    auto const started = fj::sync_wait(pool, started_at);
    latency_us.push_back(std::chrono::duration<double, std::micro>(started - submitted).count());
  }
  std::sort(latency_us.begin(), latency_us.end());
  auto pct = [&](double p) {
    auto const i = static_cast<std::size_t>(p * static_cast<double>(latency_us.size()));
    return latency_us[std::min(latency_us.size() - 1, i)];
  };
  std::uint64_t sleeps = 0;
  for (const auto& s : pool.stats()) sleeps += s.sleeps;
  std::printf("%-10s %7zu %14.2f %12.1f %12.1f %12.1f %10llu\n", name, workers, 100.0 * cpu / wall, pct(0.5),
              pct(0.99), latency_us.back(), static_cast<unsigned long long>(sleeps));
}

}  // namespace

int main(int argc, char** argv) {
  double idle_seconds = 5.0;
  int samples = 1000;
  std::size_t workers = fj::default_worker_count();
  for (int i = 1; i < argc; ++i) {
    std::string const arg = argv[i];
    if (arg == "--idle-seconds" && i + 1 < argc) {
      idle_seconds = std::atof(argv[++i]);
    } else if (arg == "--samples" && i + 1 < argc) {
      samples = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--workers" && i + 1 < argc) {
      workers = static_cast<std::size_t>(std::max(1, std::atoi(argv[++i])));
    } else {
      std::fprintf(stderr, "usage: fj-sleep [--idle-seconds S] [--samples N] [--workers W]\n");
      return arg == "--help" ? 0 : 1;
    }
  }
  std::printf("idle for %.1f s, then %d wake-ups from an outside thread (2 ms apart)\n", idle_seconds,
              samples);
  std::printf("%-10s %7s %14s %12s %12s %12s %10s\n", "pool", "workers", "idle CPU %core", "wake p50 us",
              "wake p99 us", "wake max us", "sleeps");
  measure<fj::lazy_pool>("lazy_pool", workers, idle_seconds, samples);
  measure<fj::busy_pool>("busy_pool", workers, idle_seconds, samples);
  return 0;
}
