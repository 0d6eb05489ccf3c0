# Negative-compile test, run by ctest as `cmake -DCXX=... -DFLAGS=a|b|c -DSOURCE=file.cpp -P CompileFailTest.cmake`.
# Passes iff compiling SOURCE fails, the compiler's output matches the CMake regular expression given on the
# file's first line, `// expect-error: <regex>`, and so does the first line of the output that contains
# `error:` (the one a user reads first: g++'s "In instantiation of" context lines before it do not count). An
# optional second line, `// first-error: <regex>`, replaces the regex for that first error line. Both are
# case-sensitive; diagnostics are in the C locale.

foreach(var IN ITEMS CXX FLAGS SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CompileFailTest.cmake needs -D${var}=...")
  endif()
endforeach()

file(STRINGS "${SOURCE}" header_lines LIMIT_COUNT 2)
list(GET header_lines 0 first_line)
if(NOT first_line MATCHES "^// expect-error: *(.+)$")
  message(FATAL_ERROR "${SOURCE}: the first line must be `// expect-error: <regex>`")
endif()
string(STRIP "${CMAKE_MATCH_1}" expected)
set(expected_first "${expected}")
list(LENGTH header_lines header_count)
if(header_count GREATER 1)
  list(GET header_lines 1 second_line)
  if(second_line MATCHES "^// first-error: *(.+)$")
    string(STRIP "${CMAKE_MATCH_1}" expected_first)
  endif()
endif()

string(REPLACE "|" ";" flags "${FLAGS}")
set(ENV{LC_ALL} C)
execute_process(
  COMMAND "${CXX}" ${flags} -fsyntax-only -fdiagnostics-color=never "${SOURCE}"
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)

if(result EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must not (expected an error matching: ${expected})")
endif()
if(NOT output MATCHES "${expected}")
  message(FATAL_ERROR "${SOURCE} failed to compile, but no diagnostic matches `${expected}`:\n${output}")
endif()
string(REGEX MATCH "[^\n]*error:[^\n]*" first_error "${output}")
if(NOT first_error MATCHES "${expected_first}")
  message(
    FATAL_ERROR
      "${SOURCE} failed to compile, but its first error does not match `${expected_first}` (the explanation "
      "must come first):\n${first_error}\n\nfull output:\n${output}")
endif()
message(STATUS "${SOURCE} fails to compile as expected (first error matched `${expected_first}`)")
