# The real-HLO corpus in ../shared (outside the repo) and its bulk archives, unpacked into the
# build tree so tests can read them by path:
#   HLOSCOPE_CORPUS_DIR  curated *.hlo files (lit: %corpus)
#   HLOSCOPE_BULK_DIR    ${CMAKE_BINARY_DIR}/corpus/bulk (lit: %bulk) holding, one folder per
#                        archive top level: xla/ (xla_hlo_files), cc_hlo/ (xla_cc_test_modules,
#                        with INDEX.tsv) and bulk_gh/ (torch_neuronx_graphs).
#
# Unpacking happens at configure time rather than as a build target or ctest fixture: then
# every build tree has it, whichever targets it builds (build-asan builds only a few) and
# whichever tests it runs, and no test needs to declare a fixture to use it.

set(HLOSCOPE_CORPUS_DIR "${PROJECT_SOURCE_DIR}/../shared/corpus" CACHE PATH
    "Directory of the shared HLO corpus (curated *.hlo files, bulk/*.tar.gz)")
get_filename_component(HLOSCOPE_CORPUS_DIR_ABS "${HLOSCOPE_CORPUS_DIR}" ABSOLUTE)
set(HLOSCOPE_BULK_DIR "${CMAKE_BINARY_DIR}/corpus/bulk")

set(HLOSCOPE_BULK_ARCHIVES xla_hlo_files xla_cc_test_modules torch_neuronx_graphs)

if(NOT IS_DIRECTORY "${HLOSCOPE_CORPUS_DIR_ABS}")
  # Not fatal: building and installing the library needs no corpus. The corpus tests will
  # fail, naming the missing paths, and lit's 'corpus' feature is off.
  message(WARNING "hloscope: corpus not found at ${HLOSCOPE_CORPUS_DIR_ABS}; tests that read "
                  "it will fail. Set -DHLOSCOPE_CORPUS_DIR=/path/to/shared/corpus.")
else()
  foreach(name IN LISTS HLOSCOPE_BULK_ARCHIVES)
    set(archive "${HLOSCOPE_CORPUS_DIR_ABS}/bulk/${name}.tar.gz")
    set(stamp "${HLOSCOPE_BULK_DIR}/.${name}.stamp")
    if(NOT EXISTS "${archive}")
      message(WARNING "hloscope: bulk archive ${archive} is missing; tests using it will fail.")
      continue()
    endif()
    # Re-run configure (and so re-unpack) when an archive changes.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${archive}")
    # The stamp records which archive was unpacked, so pointing HLOSCOPE_CORPUS_DIR elsewhere
    # unpacks again as well.
    if(EXISTS "${stamp}" AND "${stamp}" IS_NEWER_THAN "${archive}")
      file(READ "${stamp}" unpacked_from)
      if(unpacked_from STREQUAL archive)
        continue()
      endif()
    endif()
    message(STATUS "hloscope: unpacking ${name}.tar.gz into ${HLOSCOPE_BULK_DIR}")
    file(ARCHIVE_EXTRACT INPUT "${archive}" DESTINATION "${HLOSCOPE_BULK_DIR}")
    file(WRITE "${stamp}" "${archive}")
  endforeach()
endif()
