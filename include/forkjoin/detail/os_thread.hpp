#pragma once
// A joinable OS thread whose stack size can be chosen (std::thread cannot). Worker threads need only a small
// stack: tasks run on segmented stacks and pass control by symmetric transfer.

#include <pthread.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

namespace fj::detail {

class os_thread {
 public:
  os_thread() = default;
  os_thread(const os_thread&) = delete;
  os_thread& operator=(const os_thread&) = delete;
  ~os_thread() { join(); }

  // stack_size 0 keeps the system default.
  void start(std::function<void()> body, std::size_t stack_size) {
    auto owned = std::make_unique<std::function<void()>>(std::move(body));
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (stack_size != 0) {
      if (int rc = pthread_attr_setstacksize(&attr, stack_size); rc != 0) {
        pthread_attr_destroy(&attr);
        throw std::system_error(rc, std::generic_category(),
                                "fj: thread stack size " + std::to_string(stack_size) + " rejected");
      }
    }
    int const rc = pthread_create(&handle_, &attr, &trampoline, owned.get());
    pthread_attr_destroy(&attr);
    if (rc != 0) throw std::system_error(rc, std::generic_category(), "fj: cannot start a worker thread");
    (void)owned.release();  // the new thread owns the body now (trampoline)
    started_ = true;
  }

  void join() noexcept {
    if (!started_) return;
    pthread_join(handle_, nullptr);
    started_ = false;
  }

 private:
  static void* trampoline(void* arg) {
    std::unique_ptr<std::function<void()>> body(static_cast<std::function<void()>*>(arg));
    (*body)();
    return nullptr;
  }

  pthread_t handle_{};
  bool started_ = false;
};

}  // namespace fj::detail
