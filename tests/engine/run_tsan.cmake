# Builds the cluster tests with ThreadSanitizer in a build tree of its own and runs the 16-IPU
# stress case under it: a data race or a lock-order inversion fails the test.
# Usage: cmake -DSRC=<source dir> -DBIN=<build dir> -P run_tsan.cmake
foreach(var SRC BIN)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_tsan.cmake needs -D${var}=...")
  endif()
endforeach()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIPUTRAIN_TSAN=ON
          -DIPUTRAIN_NATIVE=ON
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the ThreadSanitizer build failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} -j2 --target test_engine_cluster RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the ThreadSanitizer build failed")
endif()
set(ENV{TSAN_OPTIONS} "halt_on_error=1 second_deadlock_stack=1 exitcode=66")
execute_process(
  COMMAND ${BIN}/tests/engine/test_engine_cluster "--test-case=16 virtual IPUs*"
  WORKING_DIRECTORY ${SRC}/tests/engine
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the 16-IPU stress run failed under ThreadSanitizer (exit ${rc})")
endif()
