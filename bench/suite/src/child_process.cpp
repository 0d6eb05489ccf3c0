#include "child_process.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace fjb {
namespace {

[[noreturn]] void throw_errno(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

// Deep recursions (UTS T3L is 17844 levels deep) overflow the usual 8 MiB main-thread stack in the
// runtimes that recurse on it, so children get a larger one; the limit must be set before exec.
constexpr rlim_t child_stack_bytes = rlim_t{1} << 30;

// Only plain system calls between fork and exec: the parent might have had threads.
[[noreturn]] void become_child(int output_fd, int unused_fd, std::vector<char*>& argv) {
  ::close(unused_fd);
  rlimit stack{};
  if (::getrlimit(RLIMIT_STACK, &stack) == 0 && stack.rlim_cur != RLIM_INFINITY &&
      stack.rlim_cur < child_stack_bytes) {
    stack.rlim_cur =
        stack.rlim_max == RLIM_INFINITY ? child_stack_bytes : std::min(child_stack_bytes, stack.rlim_max);
    ::setrlimit(RLIMIT_STACK, &stack);
  }
  if (::dup2(output_fd, STDOUT_FILENO) < 0) {
    ::_exit(127);
  }
  ::close(output_fd);
  ::execv("/proc/self/exe", argv.data());
  ::_exit(127);
}

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got > 0) {
      text.append(buffer, static_cast<std::size_t>(got));
    } else if (got == 0) {
      return text;
    } else if (errno != EINTR) {
      throw_errno("reading a benchmark child's output");
    }
  }
}

}  // namespace

child_outcome run_self(const std::vector<std::string>& arguments) {
  std::vector<std::string> storage;
  storage.reserve(arguments.size() + 1);
  storage.emplace_back("fj-bench");
  storage.insert(storage.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  argv.reserve(storage.size() + 1);
  for (auto& argument : storage) {
    argv.push_back(argument.data());
  }
  argv.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) {
    throw_errno("creating a pipe for a benchmark child");
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    throw_errno("forking a benchmark child");
  }
  if (pid == 0) {
    become_child(pipe_fds[1], pipe_fds[0], argv);
  }
  ::close(pipe_fds[1]);
  child_outcome outcome{};
  outcome.output = read_all(pipe_fds[0]);
  ::close(pipe_fds[0]);

  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      throw_errno("waiting for a benchmark child");
    }
  }
  outcome.killed_by_signal = WIFSIGNALED(status);
  outcome.signal = outcome.killed_by_signal ? WTERMSIG(status) : 0;
  outcome.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  outcome.max_rss_kib = usage.ru_maxrss;  // Linux reports kibibytes
  return outcome;
}

}  // namespace fjb
