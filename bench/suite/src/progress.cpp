#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace fjb {

progress::progress(std::size_t total) : total_(total), terminal_(::isatty(STDERR_FILENO) == 1) {}

void progress::starting(const cell& next, unsigned repetition, unsigned repetitions) {
  ++done_;
  if (!terminal_) {
    return;
  }
  std::fprintf(stderr, "\r\033[K[%4zu/%zu] %-10.*s %-8.*s P=%-3u rep %u/%u", done_, total_,
               static_cast<int>(next.bench->info.name.size()), next.bench->info.name.data(),
               static_cast<int>(next.implementation->name.size()), next.implementation->name.data(),
               next.workers, repetition, repetitions);
  std::fflush(stderr);
}

void progress::workload_done(const workload& bench, double elapsed_seconds) {
  clear_line();
  std::fprintf(stderr, "[%4zu/%zu] %-10.*s done in %.1f s\n", done_, total_,
               static_cast<int>(bench.info.name.size()), bench.info.name.data(), elapsed_seconds);
}

void progress::clear_line() {
  if (terminal_) {
    std::fputs("\r\033[K", stderr);
  }
}

}  // namespace fjb
