// A watchdog for stress tests: a run that hangs must fail loudly, naming its seed and the pools' state, long
// before ctest's timeout kills the process without a word.
//
//   fj::test::watchdog dog;                      // deadline from FJ_WATCHDOG_SECONDS, default 120 s
//   {
//     auto watch = dog.watch("busy4 tree 17 seed 42", [&] { return fj::test::describe_pool(pool); });
//     ...                                        // if this takes longer than the deadline: report, abort()
//   }
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace fj::test {

// What a pool is doing, for a hang report: its description, sleeping workers and per-worker counters. The
// counters are relaxed snapshots, safe to read while the pool runs.
template <class Pool>
std::string describe_pool(const Pool& pool) {
  std::string out = pool.description() + "; sleeping now: " + std::to_string(pool.sleeping()) + "\n";
  std::size_t index = 0;
  for (const auto& s : pool.stats()) {
    out += "  worker " + std::to_string(index++) + ": steal_attempts=" + std::to_string(s.steal_attempts) +
           " steals=" + std::to_string(s.steals) + " roots_run=" + std::to_string(s.roots_run) +
           " submissions_run=" + std::to_string(s.submissions_run) + " sleeps=" + std::to_string(s.sleeps) +
           "\n";
  }
  return out;
}

class watchdog {
 public:
  // The deadline of one watched run: FJ_WATCHDOG_SECONDS if set, else `fallback`.
  static std::chrono::seconds deadline_from_env(std::chrono::seconds fallback) {
    if (const char* env = std::getenv("FJ_WATCHDOG_SECONDS"); env != nullptr && *env != '\0') {
      long const s = std::strtol(env, nullptr, 10);
      if (s > 0) return std::chrono::seconds(s);
    }
    return fallback;
  }

  explicit watchdog(std::chrono::seconds deadline = deadline_from_env(std::chrono::seconds(120)))
      : deadline_(deadline), thread_([this] { patrol(); }) {}

  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;

  ~watchdog() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  [[nodiscard]] std::chrono::seconds deadline() const noexcept { return deadline_; }

  // Watches one run until the returned guard dies. `describe` runs on the watchdog's thread if the run
  // overruns, so whatever it reads must stay valid (and safe to read concurrently) until then. One run at a
  // time: a new watch replaces the previous one.
  class guard {
   public:
    explicit guard(watchdog* dog) noexcept : dog_(dog) {}
    guard(guard&& other) noexcept : dog_(std::exchange(other.dog_, nullptr)) {}
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;
    guard& operator=(guard&&) = delete;
    ~guard() {
      if (dog_ != nullptr) dog_->disarm();
    }

   private:
    watchdog* dog_;
  };

  [[nodiscard]] guard watch(std::string what, std::function<std::string()> describe) {
    {
      std::lock_guard lock(mutex_);
      what_ = std::move(what);
      describe_ = std::move(describe);
      expires_ = std::chrono::steady_clock::now() + deadline_;
      armed_ = true;
      ++generation_;
    }
    changed_.notify_all();
    return guard(this);
  }

 private:
  void disarm() {
    {
      std::lock_guard lock(mutex_);
      armed_ = false;
      describe_ = nullptr;
      ++generation_;
    }
    changed_.notify_all();
  }

  void patrol() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      if (!armed_) {
        changed_.wait(lock);
        continue;
      }
      unsigned long const seen = generation_;
      if (changed_.wait_until(lock, expires_, [&] { return stopping_ || generation_ != seen; })) continue;
      // The same run is still armed and its deadline has passed: a hang. Report and stop the process; the
      // lock is held, so the run cannot disarm (and invalidate `describe_`) meanwhile.
      std::fprintf(stderr, "\n[watchdog] HANG: %s did not finish within %lld s\n", what_.c_str(),
                   static_cast<long long>(deadline_.count()));
      if (describe_) std::fprintf(stderr, "[watchdog] state:\n%s\n", describe_().c_str());
      std::fflush(stderr);
      std::abort();
    }
  }

  std::chrono::seconds const deadline_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  bool armed_ = false;
  unsigned long generation_ = 0;
  std::chrono::steady_clock::time_point expires_;
  std::string what_;
  std::function<std::string()> describe_;
  std::thread thread_;
};

}  // namespace fj::test
