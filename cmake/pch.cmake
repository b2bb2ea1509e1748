# Precompiled headers (bench/build_time.py measured why: most of a small translation unit's compile
# time is parsing the standard library, fmt and Eigen again). A precompiled header changes no
# computation: compared object by object with a build without it, the floating-point instructions
# are the same (bench/README.md); inlining elsewhere may differ.
#
#   iputrain_precompile_library(target [COLD [FUZZED]])  a stage library: the headers of the library PCH;
#                                           the first library to ask builds it, the others reuse it
#   iputrain_precompile_executable(target [TEST] [COLD])  a program (the command, a test with TEST):
#                                           the headers of the program (or test) PCH, built once, by
#                                           the first program to ask, and reused
#
# COLD marks code whose speed is not the product's (the command line, the model and config parsers,
# reports, tests): in a Release build it compiles at -O1, which spends a third less time in code
# generation than -O3, and the tests' own code at -O0. No kernel, optimizer or engine code is COLD. GCC takes the optimisation level
# from the PCH it reads, so COLD targets share PCHs of their own, built at -O1.
# The sanitizer trees (tests/fuzz/run_sanitized.sh, tests/engine/run_tsan.cmake) set
# IPUTRAIN_COLD_O0: there cold code compiles at -O0, 2.5 times faster than at the trees' -O1 (a test
# unit under clang ASan + UBSan: 27.1 s against 11.0 s of CPU; the config library's toml++ unit was
# 148 s in the last CI) and instrumented all the same. FUZZED cold code (the model parser and its
# grammar, where the model and program fuzzers spend their inputs) keeps the tree's level.
#
# -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON turns them off (each unit then includes what it needs, as
# it must anyway: a header the PCH brings is no excuse for a missing #include).
# Reuse needs the same compile flags. Static libraries build with -fPIC and programs with -fPIE,
# which GCC and clang refuse to mix in one PCH, hence separate hosts. With clang, a PCH is checked against
# every macro on the command line, and the stage libraries and programs differ in theirs
# (IPUTRAIN_WITH_MPI...), so there each library and program builds its own; the tests all define the
# same (tests/CMakeLists.txt: iputrain_test_main's), so they share one as under GCC (a macro only
# some define, MPIEXEC, clang accepts beside a PCH without it). In the sanitizer tree that was 38
# PCHs of the same headers, 150 s of its build.

# The standard library, fmt and Eigen: what nearly every unit of the stages includes.
set(IPUTRAIN_PCH_COMMON
  <algorithm> <array> <cmath> <cstdint> <cstring> <filesystem> <fstream> <functional> <limits> <map>
  <memory> <optional> <set> <span> <sstream> <string> <string_view> <utility> <vector>
  <fmt/format.h>)
# Library units also parse Eigen and the op kernels' helpers (the 130 op files of core/ops).
set(IPUTRAIN_PCH_LIBRARY ${IPUTRAIN_PCH_COMMON} <Eigen/Core> [["core/ops/op_util.hpp"]] [["core/ops/unary_util.hpp"]])
# Programs: the command and the benchmarks; the tests add doctest (whose header registers a test
# suite in every unit that includes it, so it stays out of the others; its implementation is in
# test_main.cpp, which has no PCH).
set(IPUTRAIN_PCH_PROGRAM ${IPUTRAIN_PCH_COMMON})
set(IPUTRAIN_PCH_TEST ${IPUTRAIN_PCH_COMMON} <doctest/doctest.h>)

option(IPUTRAIN_COLD_O0 "Compile cold code (COLD targets) at -O0: the sanitizer trees" OFF)

# iputrain_cold(target [FUZZED] [TEST]): the target's code is cold (see above); also for targets
# without a PCH. TEST: a test program's own code, at -O0 in every tree (half of the main tree's
# compile was the tests'; what they check runs in the libraries, at the tree's level).
# In the ASan + UBSan trees (IPUTRAIN_FUZZ, IPUTRAIN_SANITIZE) a test program's own code keeps
# AddressSanitizer but not UndefinedBehaviorSanitizer nor the fuzzer's coverage: the tests are there
# to drive the product's code, which is instrumented in full in the libraries, and the two were 40 %
# of a test unit's compile (a test_cli unit: 8.8 s of CPU with them, 5.6 s without). ASan stays (a
# program whose own units lack it fails the runtime's start-up here, clang 16 on glibc 2.36).
function(iputrain_cold target)
  if("TEST" IN_LIST ARGN OR (IPUTRAIN_COLD_O0 AND NOT "FUZZED" IN_LIST ARGN))
    target_compile_options(${target} PRIVATE -O0)
  elseif(NOT IPUTRAIN_COLD_O0)
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-O1>)
  endif()
  if("TEST" IN_LIST ARGN AND (IPUTRAIN_FUZZ OR IPUTRAIN_SANITIZE))
    target_compile_options(${target} PRIVATE -fno-sanitize=undefined,fuzzer-no-link)
  endif()
endfunction()

function(iputrain_precompile_ kind target cold)
  set(host_key ${kind})
  if(cold)
    iputrain_cold(${target} ${ARGN} ${kind})
    set(host_key ${kind}_COLD)
    if(IPUTRAIN_COLD_O0 AND "FUZZED" IN_LIST ARGN)  # compiled at another level there: a PCH of its own
      set(host_key ${kind}_COLD_FUZZED)
    endif()
  endif()
  if(CMAKE_DISABLE_PRECOMPILE_HEADERS)
    return()
  endif()
  get_property(host GLOBAL PROPERTY IPUTRAIN_PCH_${host_key}_HOST)
  if(host AND (CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR kind STREQUAL "TEST"))
    target_precompile_headers(${target} REUSE_FROM ${host})
  else()
    target_precompile_headers(${target} PRIVATE ${IPUTRAIN_PCH_${kind}})
    if(NOT host)
      set_property(GLOBAL PROPERTY IPUTRAIN_PCH_${host_key}_HOST ${target})
    endif()
  endif()
endfunction()

# iputrain_precompile_library(target [COLD [FUZZED]])
function(iputrain_precompile_library target)
  set(cold OFF)
  if("COLD" IN_LIST ARGN)
    set(cold ON)
  endif()
  set(fuzzed)
  if("FUZZED" IN_LIST ARGN)
    set(fuzzed FUZZED)
  endif()
  iputrain_precompile_(LIBRARY ${target} ${cold} ${fuzzed})
endfunction()

# iputrain_precompile_executable(target [TEST] [COLD])
function(iputrain_precompile_executable target)
  # fmt's target defines FMT_SHARED, which its headers read: every program defines it alike.
  target_link_libraries(${target} PRIVATE fmt::fmt)
  set(cold OFF)
  if("COLD" IN_LIST ARGN)
    set(cold ON)
  endif()
  if("TEST" IN_LIST ARGN)
    iputrain_precompile_(TEST ${target} ${cold})
  else()
    iputrain_precompile_(PROGRAM ${target} ${cold})
  endif()
endfunction()
