// expect-error: fj::sync_wait: argument N .*must be converted to bind a reference parameter of fn
// sync_wait keeps its caller's temporaries alive until the task has finished, but not the std::string a
// conversion makes inside it: that one dies before the root task starts.
#include <forkjoin/forkjoin.hpp>

#include <string>

fj::task<int> length(const std::string& s) { co_return static_cast<int>(s.size()); }

int main() {
  fj::unit_pool pool;
  return fj::sync_wait(pool, length, "xy");
}
