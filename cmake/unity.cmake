# Unity builds (bench/build_time.py measured why): a small unit of the stages spends most of its
# compile time parsing and instantiating what its neighbours parse and instantiate again, so each
# stage's sources are compiled in batches of IPUTRAIN_UNITY_BATCH files per unit.
#
#   iputrain_unity_build(target [SKIP file...])   batch the target's sources; the SKIP files are
#                                                 compiled alone
#
# A file's private helpers live in an anonymous namespace with a namespace of their own inside it
# (`namespace { namespace impl_<file> {`, as the op files, the pipeline schedules and the optimizers
# do), since several files now share a unit. Kernel helpers that other files call (core/ops/*_util.cpp,
# the GEMM, op files with a header of their own) are compiled alone: a caller in the same unit could
# otherwise inline them and fuse a multiply and an add across the call, which changes the bits.
# -DIPUTRAIN_UNITY=OFF compiles every file alone.
option(IPUTRAIN_UNITY "Compile each stage's sources in batches (unity build)" ON)
set(IPUTRAIN_UNITY_BATCH 12 CACHE STRING "Source files per unit of a unity build")

function(iputrain_unity_build target)
  if(NOT IPUTRAIN_UNITY)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SKIP")
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${IPUTRAIN_UNITY_BATCH})
  if(arg_SKIP)
    set_source_files_properties(${arg_SKIP} TARGET_DIRECTORY ${target} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
endfunction()
