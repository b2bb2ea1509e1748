# `cpack -G DEB` makes an installable package: dpkg -i installs it, `iputrain --version` runs from
# /usr/bin and reports the project version, the manual page and the CMake package are in place; the
# package is removed again afterwards.
# Usage: cmake -DBUILD=<build dir> -DWORK=<scratch dir> -DVERSION=0.2.0 -P deb.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND cpack -G DEB -B ${WORK} --config ${BUILD}/CPackConfig.cmake
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cpack failed:\n${out}${err}")
endif()
file(GLOB debs ${WORK}/iputrain_*.deb)
list(LENGTH debs n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one iputrain_*.deb in ${WORK}, found ${n}")
endif()
execute_process(COMMAND dpkg-deb --contents ${debs} OUTPUT_VARIABLE contents)
foreach(f ./usr/bin/iputrain ./usr/lib/libiputrain.so ./usr/include/iputrain/session.hpp
          ./usr/lib/cmake/iputrain/iputrainConfig.cmake ./usr/share/man/man1/iputrain.1
          ./usr/share/doc/iputrain/config.md)
  if(NOT contents MATCHES "${f}")
    message(FATAL_ERROR "the package lacks ${f}:\n${contents}")
  endif()
endforeach()
execute_process(COMMAND dpkg -i ${debs} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dpkg -i failed:\n${out}${err}")
endif()
execute_process(COMMAND /usr/bin/iputrain --version RESULT_VARIABLE rc OUTPUT_VARIABLE version ERROR_VARIABLE err)
execute_process(COMMAND dpkg --purge iputrain OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT version MATCHES "iputrain ${VERSION}")
  message(FATAL_ERROR "the installed iputrain --version gave `${version}${err}` (status ${rc})")
endif()
message("installed and ran: ${version}")
