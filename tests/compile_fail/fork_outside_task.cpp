// expect-error: can only be awaited inside a coroutine that returns fj::task<T>
// Awaiting fj::fork in a coroutine of another type is a compile-time error.
#include <forkjoin/forkjoin.hpp>

#include <coroutine>

struct other_coroutine {
  struct promise_type {
    other_coroutine get_return_object() { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() {}
  };
};

fj::task<int> child() { co_return 1; }

other_coroutine not_a_task() {
  int r = 0;
  co_await fj::fork(&r, child);
}

int main() {}
