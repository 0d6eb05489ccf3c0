// fj-steal-contention: what a successful steal costs when k thieves aim at one victim, the case where thieves
// starve (scarce parallelism). The victim pushes one item at a time and waits until a thief has taken it; k
// thieves steal from that one deque. Reported for k = 1, 2, 4, 8, 16 and both fence modes of fj::deque:
//   - heavy fences (membarriers) per successful steal: the target is at most one at every k
//     (docs/protocols/deque.md, "One heavy fence per steal"); more is a bug and the exit status is 1;
//   - steal attempts, contended attempts (another thief held the victim's claim token) and lost races per
//     steal;
//   - steal latency: from the push to the successful steal (median and 90th percentile).
// On a machine with fewer cores than k + 1 the threads take turns on the cores, and latency measures the
// scheduler more than the deque; the fence counts hold regardless.
//
//   fj-steal-contention [--items N] [--seconds S] [--thieves LIST]

#include <forkjoin/ext/deque.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now().time_since_epoch()).count());
}

// One thief's tallies, on its own cache lines so that the thieves do not slow each other down here.
struct alignas(128) thief_tally {
  std::uint64_t attempts = 0;
  std::uint64_t steals = 0;
  std::uint64_t heavy_fences = 0;
  std::uint64_t contended = 0;
  std::uint64_t lost_races = 0;
  std::vector<double> latency_us;
};

struct outcome {
  std::size_t thieves = 0;
  thief_tally total;
};

outcome run(fj::deque_fences fences, std::size_t thieves, std::uint64_t items, double seconds) {
  fj::deque<std::uint64_t> d(64, fences);
  std::vector<thief_tally> tallies(thieves);
  // release/acquire: the thieves' last look at the deque comes after the owner's last push.
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  threads.reserve(thieves);
  for (std::size_t i = 0; i < thieves; ++i) {
    threads.emplace_back([&d, &done, &tally = tallies[i]] {
      auto thief = d.thief();
      tally.latency_us.reserve(1 << 16);
      // acquire: pairs with the release store of done.
      while (!done.load(std::memory_order_acquire)) {
        const fj::steal_result<std::uint64_t> r = thief.steal();
        ++tally.attempts;
        tally.heavy_fences += r.heavy_fence ? 1 : 0;
        switch (r.status) {
          case fj::steal_status::success:
            ++tally.steals;
            tally.latency_us.push_back(static_cast<double>(now_ns() - r.value) / 1000.0);
            break;
          case fj::steal_status::contended: ++tally.contended; break;
          case fj::steal_status::lost_race: ++tally.lost_races; break;
          case fj::steal_status::empty:
          case fj::steal_status::declined: break;  // steal() never declines
        }
        // Let the victim and the other thieves run where the threads outnumber the cores.
        if (r.status != fj::steal_status::success) std::this_thread::yield();
      }
    });
  }
  auto owner = d.owner();
  const auto deadline = clock_type::now() + std::chrono::duration<double>(seconds);
  for (std::uint64_t i = 0; i < items && clock_type::now() < deadline; ++i) {
    owner.push(now_ns());
    // Wait until a thief has the item; the owner never pops, so every item goes to a thief.
    while (!owner.empty()) std::this_thread::yield();
  }
  // release: pairs with the thieves' acquire loads of done.
  done.store(true, std::memory_order_release);
  for (std::thread& t : threads) t.join();

  outcome out;
  out.thieves = thieves;
  for (const thief_tally& t : tallies) {
    out.total.attempts += t.attempts;
    out.total.steals += t.steals;
    out.total.heavy_fences += t.heavy_fences;
    out.total.contended += t.contended;
    out.total.lost_races += t.lost_races;
    out.total.latency_us.insert(out.total.latency_us.end(), t.latency_us.begin(), t.latency_us.end());
  }
  std::sort(out.total.latency_us.begin(), out.total.latency_us.end());
  return out;
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  const auto i = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1));
  return sorted[i];
}

double per(std::uint64_t count, std::uint64_t steals) {
  return steals == 0 ? 0.0 : static_cast<double>(count) / static_cast<double>(steals);
}

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(
      stderr,
      "fj-steal-contention: %s\nusage: fj-steal-contention [--items N] [--seconds S] [--thieves "
      "LIST]\n  --items N      items the victim hands out per configuration (default 20000, 1..10^9)\n"
      "  --seconds S    time limit per configuration (default 0.5, 0.001..600)\n"
      "  --thieves LIST thief counts, comma-separated (default 1,2,4,8,16; each 1..256)\n",
      message.c_str());
  std::exit(2);
}

std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t lo,
                          std::uint64_t hi) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || end == nullptr || *end != '\0' || v < lo || v > hi) {
    usage_error(flag + " " + text + " is not a whole number in " + std::to_string(lo) + ".." +
                std::to_string(hi));
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t items = 20000;
  double seconds = 0.5;
  std::vector<std::size_t> thief_counts{1, 2, 4, 8, 16};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help") usage_error("measures steals by k thieves from one victim");
    if (i + 1 >= argc) usage_error("missing value after " + arg);
    const std::string value = argv[++i];
    if (arg == "--items") {
      items = parse_count(arg, value, 1, 1'000'000'000);
    } else if (arg == "--seconds") {
      char* end = nullptr;
      seconds = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(seconds >= 0.001 && seconds <= 600)) {
        usage_error("--seconds " + value + " is not a number in 0.001..600");
      }
    } else if (arg == "--thieves") {
      thief_counts.clear();
      std::size_t start = 0;
      while (start <= value.size()) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        thief_counts.push_back(parse_count(arg, value.substr(start, comma - start), 1, 256));
        start = comma + 1;
      }
    } else {
      usage_error("unknown option " + arg);
    }
  }

  const bool asymmetric = fj::deque<std::uint64_t>(2).uses_asymmetric_fences();
  const bool one_core = asymmetric && fj::detail::enable_cpu_fences();
  std::printf("## Steals from one victim by k thieves\n\n");
  std::printf(
      "The victim pushes one item at a time and waits until a thief has it; %s cores here, so latency "
      "at k + 1 > cores measures the OS scheduler as well. Automatic mode is %s here.\n\n",
      std::to_string(std::thread::hardware_concurrency()).c_str(),
      !asymmetric ? "symmetric (asymmetric fences unavailable)"
      : one_core  ? "asymmetric (membarrier in steal, on the victim's core only)"
                  : "asymmetric (membarrier in steal, on every core)");
  std::printf(
      "| fences | k | steals | heavy fences / steal | attempts / steal | contended / steal | "
      "lost races / steal | latency median (us) | latency p90 (us) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  bool within_target = true;
  for (const fj::deque_fences fences : {fj::deque_fences::automatic, fj::deque_fences::symmetric}) {
    for (const std::size_t k : thief_counts) {
      const outcome o = run(fences, k, items, seconds);
      const thief_tally& t = o.total;
      std::printf("| %s | %zu | %llu | %.3f | %.1f | %.2f | %.2f | %.1f | %.1f |\n",
                  fences == fj::deque_fences::automatic ? "automatic" : "symmetric", k,
                  static_cast<unsigned long long>(t.steals), per(t.heavy_fences, t.steals),
                  per(t.attempts, t.steals), per(t.contended, t.steals), per(t.lost_races, t.steals),
                  percentile(t.latency_us, 0.5), percentile(t.latency_us, 0.9));
      // The owner never pops, so a membarrier not followed by a successful steal is a broken token.
      if (t.heavy_fences > t.steals) within_target = false;
    }
  }
  std::printf("\nTarget: at most 1 heavy fence per successful steal at every k: %s.\n",
              within_target ? "met" : "MISSED");
  return within_target ? 0 : 1;
}
