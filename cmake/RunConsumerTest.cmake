# cmake -P script behind the `install_consumer` test (see HloscopeInstall.cmake).
#   -DBUILD_DIR=<built hloscope tree> -DCONSUMER_SOURCE_DIR=<tests/consumer>
#   -DWORK_DIR=<scratch dir, wiped> -DCXX_COMPILER=<compiler of the main build>
#   -DBINDIR= -DINCLUDEDIR= -DCONFIGDIR=<install dirs, relative to the prefix>
cmake_minimum_required(VERSION 3.25)
foreach(var BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR CXX_COMPILER BINDIR INCLUDEDIR CONFIGDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "RunConsumerTest.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")

function(step)
  list(JOIN ARGV " " command_line)
  message(STATUS "+ ${command_line}")
  execute_process(COMMAND ${ARGV} COMMAND_ECHO NONE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${ARGV}")
  endif()
endfunction()

step("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")

foreach(installed ${BINDIR}/hlo-opt
                  ${INCLUDEDIR}/hloscope/hlo/parser.h ${INCLUDEDIR}/hloscope/hlo/printer.h
                  ${CONFIGDIR}/hloscopeConfig.cmake ${CONFIGDIR}/hloscopeConfigVersion.cmake
                  ${CONFIGDIR}/hloscopeTargets.cmake)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "install is missing ${prefix}/${installed}")
  endif()
endforeach()

# Each library ships its own headers and no private ones: eval/'s come with hloscope::eval
# (at their include path), and *_internal.h stays in the source tree.
foreach(installed ${INCLUDEDIR}/hloscope/eval/evaluator.h
                  ${INCLUDEDIR}/hloscope/pipeline/simulator.h)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "install is missing ${prefix}/${installed}")
  endif()
endforeach()
file(GLOB_RECURSE private_headers RELATIVE "${prefix}" "${prefix}/${INCLUDEDIR}/*_internal.h")
if(private_headers)
  message(FATAL_ERROR "install ships private headers: ${private_headers}")
endif()

# Only the install prefix is on CMAKE_PREFIX_PATH: the consumer must not see the build tree.
step("${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${consumer_build}"
     "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
     -DCMAKE_BUILD_TYPE=Release)
step("${CMAKE_COMMAND}" --build "${consumer_build}")

execute_process(COMMAND "${consumer_build}/consumer"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "consumer output:\n${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer exited with ${rc}")
endif()
# The consumer prints the module it parsed; its name and ROOT must survive the round trip.
foreach(expected "HloModule consumer_smoke" "ROOT")
  string(FIND "${out}" "${expected}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "consumer output lacks '${expected}'")
  endif()
endforeach()
message(STATUS "install + find_package(hloscope) consumer: OK")
