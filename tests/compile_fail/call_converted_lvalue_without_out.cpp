// expect-error: fj::call: argument N .*must be converted to bind a reference parameter of the called function
// The same without an out pointer, and from an lvalue of another type: the const char* becomes a temporary
// std::string inside fj::call.
#include <forkjoin/forkjoin.hpp>

#include <string>

fj::task<void> record(std::string* log, const std::string& line) {
  *log += line;
  co_return;
}

fj::task<void> parent(std::string* log, const char* line) { co_await fj::call(record, log, line); }

int main() {}
