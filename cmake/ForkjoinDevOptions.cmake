# Compiler options for forkjoin's own targets (the library in our builds, tests, examples, benchmarks) —
# never for consumers.
#
# fj_apply_dev_options() adds them to the calling directory and so to every target defined in it
# and in its subdirectories; a helper's bench/<x>/CMakeLists.txt gets them without doing anything.

set(FJ_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wconversion -Wshadow)

set(FJ_SANITIZER_FLAGS "")
if(FJ_SANITIZER STREQUAL "address")
  # UBSan rides along with ASan; -fno-sanitize-recover=all makes every finding fatal so ctest sees it.
  set(FJ_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
elseif(FJ_SANITIZER STREQUAL "thread")
  set(FJ_SANITIZER_FLAGS -fsanitize=thread -fno-omit-frame-pointer)
endif()

# Environment for running sanitized programs from ctest: stop at the first report with a stack.
set(FJ_SANITIZER_TEST_ENV "")
if(FJ_SANITIZER STREQUAL "address")
  set(FJ_SANITIZER_TEST_ENV "ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1"
                            "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
elseif(FJ_SANITIZER STREQUAL "thread")
  set(FJ_SANITIZER_TEST_ENV "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
endif()

function(fj_apply_dev_options)
  add_compile_options(${FJ_WARNING_FLAGS})
  if(FJ_WERROR)
    add_compile_options(-Werror)
  endif()
  if(FJ_SANITIZER_FLAGS)
    add_compile_options(${FJ_SANITIZER_FLAGS})
    add_link_options(${FJ_SANITIZER_FLAGS})
  endif()
  if(FJ_CHAOS)
    add_compile_definitions(FJ_CHAOS=1)
  endif()
endfunction()

# The same options for one target of ours defined outside those directories: the compiled library itself
# (top-level CMakeLists.txt), so that a sanitizer, chaos or -Werror build also covers src/. Its consumers get
# none of this: the options are PRIVATE.
function(fj_apply_dev_options_to target)
  target_compile_options(${target} PRIVATE ${FJ_WARNING_FLAGS})
  if(FJ_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(FJ_SANITIZER_FLAGS)
    target_compile_options(${target} PRIVATE ${FJ_SANITIZER_FLAGS})
  endif()
  if(FJ_CHAOS)
    target_compile_definitions(${target} PRIVATE FJ_CHAOS=1)
  endif()
endfunction()
