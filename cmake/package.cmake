# The installable library and its CMake package.
#
#   cmake --install build --prefix P   installs P/include/iputrain/*.hpp, P/lib/libiputrain.so*,
#                                      P/lib/cmake/iputrain/ (iputrainConfig.cmake, its version file
#                                      and targets), and with the CLI P/bin/iputrain and the docs.
#   find_package(iputrain 0.2 REQUIRED) + target_link_libraries(app PRIVATE iputrain::iputrain)
#
# The build tree works the same way: iputrain_DIR=<build> finds the same package.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(IPUTRAIN_STAGES iputrain_session_api iputrain_engine iputrain_data iputrain_plan_api iputrain_plan_report iputrain_planner
                    iputrain_frontend iputrain_config iputrain_grammar iputrain_core)
set(IPUTRAIN_STAGE_OBJECTS)
foreach(stage IN LISTS IPUTRAIN_STAGES)
  list(APPEND IPUTRAIN_STAGE_OBJECTS $<TARGET_OBJECTS:${stage}>)
endforeach()
add_library(iputrain_shared SHARED ${IPUTRAIN_STAGE_OBJECTS})
set_target_properties(iputrain_shared PROPERTIES
  OUTPUT_NAME iputrain
  EXPORT_NAME iputrain
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
# Every stage library's objects, so that the public API's symbols are all in the shared object; the
# stages' dependencies (ANTLR, TBB, fmt, toml++, zlib, libpng, libjpeg) are linked into it and stay
# private.
foreach(stage IN LISTS IPUTRAIN_STAGES)
  get_target_property(deps ${stage} LINK_LIBRARIES)
  foreach(dep IN LISTS deps)
    if(dep AND NOT dep IN_LIST IPUTRAIN_STAGES)
      target_link_libraries(iputrain_shared PRIVATE ${dep})
    endif()
  endforeach()
endforeach()
target_link_libraries(iputrain_shared INTERFACE Threads::Threads)
# Consumers see include/iputrain/ and core/public/iputrain/ (and the generated version.hpp) only.
target_include_directories(iputrain_shared INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/core/public>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(iputrain_shared INTERFACE cxx_std_20)
add_library(iputrain::iputrain ALIAS iputrain_shared)

install(TARGETS iputrain_shared EXPORT iputrainTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library)
install(DIRECTORY include/iputrain core/public/iputrain DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT library
        FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/include/iputrain/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/iputrain COMPONENT library)

set(IPUTRAIN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/iputrain)
install(EXPORT iputrainTargets NAMESPACE iputrain:: DESTINATION ${IPUTRAIN_CMAKE_DIR} COMPONENT library)
configure_package_config_file(cmake/iputrainConfig.cmake.in ${PROJECT_BINARY_DIR}/iputrainConfig.cmake
                              INSTALL_DESTINATION ${IPUTRAIN_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/iputrainConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/iputrainConfig.cmake ${PROJECT_BINARY_DIR}/iputrainConfigVersion.cmake
        DESTINATION ${IPUTRAIN_CMAKE_DIR} COMPONENT library)
# The build tree as a package too.
export(EXPORT iputrainTargets NAMESPACE iputrain:: FILE ${PROJECT_BINARY_DIR}/iputrainTargets.cmake)

install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT library FILES_MATCHING PATTERN "*.md")

# `cpack -G DEB` (from the build directory): one .deb with the library, headers, CMake package, the
# command, its manual page and the docs; dependencies from dpkg-shlibdeps.
set(CPACK_PACKAGE_NAME iputrain)
set(CPACK_PACKAGE_VENDOR "iputrain")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Declarative training engine on a cluster of virtual IPUs")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "iputrain developers <iputrain@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEB_COMPONENT_INSTALL OFF)
set(CPACK_PACKAGE_DESCRIPTION "iputrain parses a model file (*.ipu) and a TOML config into an IR, plans it onto \
virtual IPUs (sharding, pipelining, replication) and trains it for real on the host CPU.")
include(CPack)
