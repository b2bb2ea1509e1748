# Builds the cluster tests with ThreadSanitizer in a build tree of its own and runs the 16-IPU
# stress case under it: a data race or a lock-order inversion fails the test.
# Usage: cmake -DSRC=<source dir> -DBIN=<build dir> -P run_tsan.cmake
foreach(var SRC BIN)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_tsan.cmake needs -D${var}=...")
  endif()
endforeach()
# -O0 with line tables only: what the race reports need. ThreadSanitizer sees every access at -O0 as
# at -O1, and the 16-IPU case is small: at -O0 the tree built in 217 s on 2 idle Zen 5 cores (405 s
# of CPU, against 902 at -O1) and the case runs in 3 s (issue 43). Built with clang 16, which CI
# installs for the fuzz targets: at -O0 it compiles the config library's unit in 12 s of CPU where
# GCC 12 takes 21 s. Without Open MPI (the test runs one process) and in unity batches of 48 files
# (192 s of CPU against 213 in batches of 12; clang contracts no multiply-add across statements, so
# the batching changes no bits here).
# $CLANG names another clang, as for run_sanitized.sh.
set(tsan_compiler clang++-16)
if(DEFINED ENV{CLANG})
  set(tsan_compiler $ENV{CLANG})
endif()
find_program(TSAN_CXX NAMES ${tsan_compiler})
if(NOT TSAN_CXX)
  message(FATAL_ERROR "the ThreadSanitizer build needs ${tsan_compiler} (Debian: clang-16 libclang-rt-16-dev)")
endif()
set(generator)
find_program(NINJA ninja)
if(NINJA AND NOT EXISTS ${BIN}/CMakeCache.txt)
  set(generator -G Ninja)
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} ${generator} -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIPUTRAIN_TSAN=ON
          -DCMAKE_CXX_COMPILER=${TSAN_CXX} "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -gline-tables-only -DNDEBUG" -DIPUTRAIN_NATIVE=ON -DIPUTRAIN_BUILD_BENCH=OFF -DIPUTRAIN_COLD_O0=ON
          -DIPUTRAIN_WITH_MPI=OFF -DIPUTRAIN_UNITY_BATCH=48
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the ThreadSanitizer build failed")
endif()
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} -j${cores} --target test_engine_cluster RESULT_VARIABLE rc)
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
