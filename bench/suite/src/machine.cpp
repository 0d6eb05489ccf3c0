#include "machine.hpp"

#include <sys/utsname.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <thread>

namespace fjb {
namespace {

unsigned count_numa_nodes() {
  const std::filesystem::path nodes = "/sys/devices/system/node";
  unsigned count = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(nodes, error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("node") && name.size() > 4 &&
        std::isdigit(static_cast<unsigned char>(name[4])) != 0) {
      ++count;
    }
  }
  return count == 0 ? 1 : count;
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.starts_with("model name")) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

std::string kernel() {
  utsname names{};
  if (::uname(&names) != 0) {
    return "unknown";
  }
  return std::string(names.sysname) + " " + names.release + " " + names.machine;
}

std::string first_line_of(const char* path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown compiler";
#endif
}

}  // namespace

machine_info describe_machine() {
  return {std::thread::hardware_concurrency(),
          count_numa_nodes(),
          cpu_model(),
          kernel(),
          compiler(),
          FJB_BUILD_DESCRIPTION,
          first_line_of("/proc/loadavg")};
}

}  // namespace fjb
