# Negative-compile test, run by ctest as `cmake -DCXX=... -DFLAGS=a|b|c -DSOURCE=file.cpp -P CompileFailTest.cmake`.
# Passes iff compiling SOURCE fails and the compiler's output matches the CMake regular expression given on
# the file's first line: `// expect-error: <regex>` (case-sensitive; diagnostics are in the C locale).

foreach(var IN ITEMS CXX FLAGS SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CompileFailTest.cmake needs -D${var}=...")
  endif()
endforeach()

file(STRINGS "${SOURCE}" first_line LIMIT_COUNT 1)
if(NOT first_line MATCHES "^// expect-error: *(.+)$")
  message(FATAL_ERROR "${SOURCE}: the first line must be `// expect-error: <regex>`")
endif()
string(STRIP "${CMAKE_MATCH_1}" expected)

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
message(STATUS "${SOURCE} fails to compile as expected (matched `${expected}`)")
