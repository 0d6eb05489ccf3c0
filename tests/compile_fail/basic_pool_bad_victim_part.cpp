// expect-error: fj::basic_pool<Idle, Victims, \.\.\.>: Victims must be
// A victim part must model fj::victim_part: here operator() may throw (it is not noexcept), so the pool
// refuses the type with a named error instead of a failure deep in the engine's glue.
#include <cstddef>

#include <forkjoin/basic_pool.hpp>

struct throwing_victims {
  throwing_victims(std::size_t /*workers*/, std::size_t /*self*/, const fj::topology& /*placement*/) {}
  std::size_t operator()() { return 0; }
};

int main() { fj::basic_pool<fj::sleep_idle, throwing_victims> pool(2); }
