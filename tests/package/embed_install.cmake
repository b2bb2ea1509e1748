# Installs iputrain's library into a fresh prefix, builds examples/embed against the installed
# package in a clean build directory (nothing of the source tree on its include path), and runs it:
# its loss must fall and it must print the plan.
# Usage: cmake -DBUILD=<iputrain build dir> -DSOURCE=<source dir> -DWORK=<scratch dir> [-DFROM_BUILD_TREE=1] -P embed_install.cmake
file(REMOVE_RECURSE ${WORK})
if(FROM_BUILD_TREE)
  set(prefix_args -Diputrain_DIR=${BUILD})
else()
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix --component library
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install failed (${rc})")
  endif()
  foreach(f include/iputrain/iputrain.hpp include/iputrain/version.hpp include/iputrain/error.hpp
            include/iputrain/settings.hpp include/iputrain/custom_op_def.hpp lib/cmake/iputrain/iputrainConfig.cmake
            lib/cmake/iputrain/iputrainConfigVersion.cmake)
    if(NOT EXISTS ${WORK}/prefix/${f})
      message(FATAL_ERROR "the install lacks ${f}")
    endif()
  endforeach()
  set(prefix_args -DCMAKE_PREFIX_PATH=${WORK}/prefix)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE}/examples/embed -B ${WORK}/embed ${prefix_args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring examples/embed failed:\n${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/embed RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building examples/embed failed:\n${out}${err}")
endif()
# Only the package's include directories (and the system's) may be on the compile line: in the
# build tree, include/ and core/public/ (the public vocabulary core owns), nothing else of the source.
file(READ ${WORK}/embed/CMakeFiles/embed.dir/flags.make flags)
string(REPLACE "${SOURCE}/core/public" "" flags_outside_public "${flags}")
if(flags_outside_public MATCHES "${SOURCE}/(core|engine|planner|frontend|api)")
  message(FATAL_ERROR "examples/embed sees the source tree's internals:\n${flags}")
endif()
execute_process(COMMAND ${WORK}/embed/embed RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "examples/embed exited with ${rc} (its loss must fall and its accuracy exceed 0.8)")
endif()
if(NOT out MATCHES "plan for classifier: 1 replica x 2 IPUs")
  message(FATAL_ERROR "examples/embed did not print its plan")
endif()
