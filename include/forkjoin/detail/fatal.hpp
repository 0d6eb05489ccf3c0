#pragma once
// The one way forkjoin stops the process. Three failure levels (docs/misuse.md): a user's exception travels
// to the join; misuse the user can act on is a typed fj::error where it can be thrown; what cannot be thrown
// (found in a destructor or a noexcept runtime path, or after the runtime's state is broken) ends here, with
// one line on stderr that starts "fj: " and then abort().

#include <cstdio>
#include <cstdlib>

namespace fj::detail {

// A misuse that cannot be thrown, or a resource the runtime cannot do without (out of memory inside a
// noexcept path). `message` says what happened and what to do instead; it is printed after "fj: ".
[[noreturn, gnu::cold, gnu::noinline]] inline void fatal(const char* message) noexcept {
  std::fprintf(stderr, "fj: %s\n", message);
  std::fflush(stderr);
  std::abort();
}

// A broken internal invariant: a bug in forkjoin, or memory corrupted by undefined behaviour elsewhere.
[[noreturn, gnu::cold, gnu::noinline]] inline void internal_error(const char* what) noexcept {
  std::fprintf(stderr, "fj: internal invariant broken: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

}  // namespace fj::detail
