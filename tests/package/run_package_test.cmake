# Package test, run by ctest: builds tests/package/consumer against forkjoin and runs it.
#   MODE=install       `cmake --install BUILD_DIR` into WORK_DIR/prefix, consumer uses find_package()
#   MODE=subdirectory  consumer uses add_subdirectory(SOURCE_DIR)
# Other inputs: SOURCE_DIR, BUILD_DIR, WORK_DIR, GENERATOR, MAKE_PROGRAM, CXX, BUILD_TYPE.

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "package test (${MODE}): ${what} failed (${result}): ${ARGN}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
# An installed library is used by programs of any build type: the install consumer is built in the other
# one (a Debug program against a Release library is the common case), which only works because the target
# passes the library's FJ_STACK_CHECKS to it (include/forkjoin/detail/build_mode.hpp).
set(consumer_build_type "${BUILD_TYPE}")
if(MODE STREQUAL "install")
  if(BUILD_TYPE STREQUAL "Debug")
    set(consumer_build_type Release)
  else()
    set(consumer_build_type Debug)
  endif()
endif()
set(consumer_args -S "${SOURCE_DIR}/tests/package/consumer" -B "${WORK_DIR}/build" -G "${GENERATOR}"
                  "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_BUILD_TYPE=${consumer_build_type}")
if(MAKE_PROGRAM)
  list(APPEND consumer_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()

if(MODE STREQUAL "install")
  run("install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
  # Only the scratch prefix may satisfy find_package(), not a copy installed elsewhere on the machine.
  list(APPEND consumer_args "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
       -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "-Dforkjoin_ROOT=${WORK_DIR}/prefix")
elseif(MODE STREQUAL "subdirectory")
  list(APPEND consumer_args "-DFORKJOIN_SOURCE_DIR=${SOURCE_DIR}")
else()
  message(FATAL_ERROR "MODE must be install or subdirectory (got '${MODE}')")
endif()

run("configure consumer" "${CMAKE_COMMAND}" ${consumer_args})
run("build consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run("run consumer" "${WORK_DIR}/build/consumer")
