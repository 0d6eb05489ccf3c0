// expect-error: fj::priority_group<Storage>: Storage must model fj::priority_storage
// A priority group needs a storage that models fj::priority_storage holding fj::priority_task: a storage of
// ints (or a type that is no storage at all) is refused with a named error.
#include <forkjoin/forkjoin.hpp>

int main() {
  fj::lazy_pool pool(1);
  fj::priority_group<fj::strict_priority_storage<int>> g(pool);
  g.spawn(1.0, [] {});
}
