# `cmake --install`: hlo-opt, the libraries, their headers under include/hloscope/ (keeping the
# hlo/…, passes/… paths so `#include "hlo/parser.h"` works) and a CMake package config with
# the exported targets in namespace hloscope::.
include(CMakePackageConfigHelpers)

set(HLOSCOPE_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/hloscope")

# One library per folder, each shipping only its own public headers; *_internal.h headers are
# private to their library's sources.
set(_hloscope_install_targets)
foreach(area support hlo pipeline analysis eval passes)
  if(TARGET hloscope_${area})
    set_target_properties(hloscope_${area} PROPERTIES EXPORT_NAME ${area})
    list(APPEND _hloscope_install_targets hloscope_${area})
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/${area}/"
            DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/hloscope/${area}"
            FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "*.inc"
            PATTERN "*_internal.h" EXCLUDE)
  endif()
endforeach()

install(TARGETS ${_hloscope_install_targets} hlo-opt hlo-gen hlo-pipeline hlo-run
        EXPORT hloscopeTargets
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(EXPORT hloscopeTargets
        NAMESPACE hloscope::
        DESTINATION "${HLOSCOPE_CMAKE_INSTALL_DIR}")

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/hloscopeConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cmake/hloscopeConfig.cmake"
  INSTALL_DESTINATION "${HLOSCOPE_CMAKE_INSTALL_DIR}")
# 0.x: a minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/cmake/hloscopeConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/cmake/hloscopeConfig.cmake"
              "${PROJECT_BINARY_DIR}/cmake/hloscopeConfigVersion.cmake"
        DESTINATION "${HLOSCOPE_CMAKE_INSTALL_DIR}")

# The install is tested the way a user meets it: install into a prefix inside the build tree,
# then configure, build and run tests/consumer against that prefix only.
add_test(NAME install_consumer
         COMMAND "${CMAKE_COMMAND}"
                 -DBUILD_DIR=${PROJECT_BINARY_DIR}
                 -DCONSUMER_SOURCE_DIR=${PROJECT_SOURCE_DIR}/tests/consumer
                 -DWORK_DIR=${PROJECT_BINARY_DIR}/consumer-test
                 -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                 -DBINDIR=${CMAKE_INSTALL_BINDIR}
                 -DINCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}
                 -DCONFIGDIR=${HLOSCOPE_CMAKE_INSTALL_DIR}
                 -P "${PROJECT_SOURCE_DIR}/cmake/RunConsumerTest.cmake")
set_tests_properties(install_consumer PROPERTIES LABELS install)
