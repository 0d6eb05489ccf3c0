// expect-error: selftest: int is not a pointer
#include <type_traits>

template <class T>
void needs_pointer(T) {
  static_assert(std::is_pointer_v<T>, "selftest: int is not a pointer");
}

int main() { needs_pointer(1); }
