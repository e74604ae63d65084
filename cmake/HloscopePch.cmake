# HLOSCOPE_PCH: precompiled headers for a clean build (CI; docs/testing.md, "Build time").
#
# At -O0 much of each compile is parsing the same standard, Abseil, fmt and GoogleTest headers
# again. With the option on, each group of targets that compiles with the same flags shares one
# precompiled header of them (REUSE_FROM a small host target per group), so they are parsed once
# per group instead of once per file.
#
# Off by default: ccache (which developers use) cannot cache a compile that reads a precompiled
# header unless its sloppiness is loosened, and a build without it is the one that finds a
# missing #include. scripts/test, which builds from scratch without ccache, turns it on for the
# -O0 sanitizer build only: at -O2 it changes GCC's inlining, and -Werror then fails on
# -Warray-bounds false positives inside absl::InlinedVector (docs/testing.md, "Build time").
#
# GCC uses a precompiled header only when the compile's -fPIC/-fPIE and the macros the headers
# read (FMT_SHARED, GTEST_HAS_PTHREAD, -pthread's _REENTRANT, -O1's __OPTIMIZE__) are the ones
# it was made with, and silently parses the headers as text otherwise: correct, but no faster.
# So the groups are keyed by exactly those inputs: the kind of target (library: -fPIC;
# executable: -fPIE), its own compile options, and the compile definitions and options that
# imported libraries (fmt::fmt, GTest::gtest, re2::re2 ...) hand down through its links.
option(HLOSCOPE_PCH "Precompile the common system headers once per group of targets (CI)" OFF)
# A tree built through ccache keeps it: ccache does not cache a compile that reads a precompiled
# header (without loosened sloppiness), so the option would turn every cache hit into a compile.
set(_hloscope_pch_on ${HLOSCOPE_PCH})
if(HLOSCOPE_PCH AND CMAKE_CXX_COMPILER_LAUNCHER)
  message(STATUS "hloscope: HLOSCOPE_PCH ignored: this build compiles through "
                 "CMAKE_CXX_COMPILER_LAUNCHER (${CMAKE_CXX_COMPILER_LAUNCHER}), which caches "
                 "compiles itself and cannot cache ones that read a precompiled header")
  set(_hloscope_pch_on OFF)
endif()
if(_hloscope_pch_on AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # A header GCC cannot use is named in the log ("not used because ..."), not an error: the
  # build is still right, only slower.
  add_compile_options(-Winvalid-pch -Wno-error=invalid-pch)
endif()

# Project headers stay out: a change to one would rebuild everything, and a file that forgets
# to include one must still fail to compile.
set(HLOSCOPE_PCH_HEADERS
  <algorithm> <array> <cmath> <cstddef> <cstdint> <cstdio> <cstdlib> <cstring> <filesystem>
  <fstream> <functional> <limits> <map> <memory> <optional> <set> <sstream> <string>
  <string_view> <utility> <vector>
  <absl/container/flat_hash_map.h> <absl/container/flat_hash_set.h>
  <absl/container/inlined_vector.h> <absl/status/status.h> <absl/status/statusor.h>
  <absl/strings/str_cat.h> <absl/types/span.h>
  <fmt/format.h>)
# Only targets that link GoogleTest get it in theirs (its macros are read by the header).
set(HLOSCOPE_PCH_TEST_HEADERS <gtest/gtest.h>)

# Every target defined in DIR and the folders below it.
function(_hloscope_pch_targets dir out)
  get_property(found DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _hloscope_pch_targets("${sub}" below)
    list(APPEND found ${below})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# The imported targets whose usage requirements reach a compile of TARGET: its direct links,
# then the interface links of each, transitively ($<LINK_ONLY:...> entries carry no compile
# requirements and are skipped).
function(_hloscope_pch_imported target out)
  get_target_property(pending ${target} LINK_LIBRARIES)
  if(NOT pending)
    set(pending "")
  endif()
  set(seen "")
  set(imported "")
  while(pending)
    list(POP_FRONT pending dep)
    if(dep MATCHES "^\\$<" OR NOT TARGET "${dep}" OR dep IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${dep}")
    get_target_property(aliased "${dep}" ALIASED_TARGET)
    if(aliased)
      list(APPEND pending "${aliased}")
      continue()
    endif()
    get_target_property(is_imported "${dep}" IMPORTED)
    if(is_imported)
      list(APPEND imported "${dep}")
    endif()
    get_target_property(next "${dep}" INTERFACE_LINK_LIBRARIES)
    if(next)
      list(APPEND pending ${next})
    endif()
  endwhile()
  set(${out} ${imported} PARENT_SCOPE)
endfunction()

# Precompiled headers for every C++ library and executable of the build (not the Python
# extension: a module of its own visibility and flags, two files).
function(hloscope_enable_pch)
  if(NOT _hloscope_pch_on)
    return()
  endif()
  _hloscope_pch_targets("${PROJECT_SOURCE_DIR}" targets)
  get_property(dir_options DIRECTORY "${PROJECT_SOURCE_DIR}" PROPERTY COMPILE_OPTIONS)
  set(host_count 0)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      set(kind exe)
    elseif(type MATCHES "^(STATIC|SHARED|OBJECT)_LIBRARY$")
      set(kind lib)
    else()
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.(cc|cpp|cxx)$")
    if(NOT sources)
      continue()
    endif()
    _hloscope_pch_imported(${target} imported)
    set(headers ${HLOSCOPE_PCH_HEADERS})
    set(usage "")
    set(links "")
    set(test no)
    foreach(dep IN LISTS imported)
      get_target_property(defs ${dep} INTERFACE_COMPILE_DEFINITIONS)
      get_target_property(opts ${dep} INTERFACE_COMPILE_OPTIONS)
      if(defs OR opts)
        list(APPEND usage "${dep}=${defs};${opts}")
        list(APPEND links ${dep})
      endif()
      if(dep MATCHES "^GTest::")
        set(test yes)
      endif()
    endforeach()
    if(test)
      list(APPEND headers ${HLOSCOPE_PCH_TEST_HEADERS})
      list(APPEND links GTest::gtest)
    endif()
    # A target with options of its own (hloscope_hlo's -O1 in the Sanitize build) makes its own.
    get_target_property(options ${target} COMPILE_OPTIONS)
    if(NOT "${options}" STREQUAL "${dir_options}")
      target_precompile_headers(${target} PRIVATE ${headers})
      continue()
    endif()
    list(SORT usage)
    list(REMOVE_DUPLICATES links)
    string(MD5 key "${kind};${test};${usage}")
    if(NOT DEFINED _hloscope_pch_host_${key})
      # The host: one small target per group, whose only work is its precompiled header.
      math(EXPR host_count "${host_count} + 1")
      set(host hloscope_pch_${kind}_${host_count})
      if(kind STREQUAL "exe")
        add_executable(${host} EXCLUDE_FROM_ALL "${PROJECT_SOURCE_DIR}/cmake/pch_host.cc")
        # Out of the way: nothing runs it.
        set_target_properties(${host} PROPERTIES
                              RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/CMakeFiles/pch_hosts")
      else()
        add_library(${host} OBJECT EXCLUDE_FROM_ALL "${PROJECT_SOURCE_DIR}/cmake/pch_host.cc")
      endif()
      target_link_libraries(${host} PRIVATE ${links})
      target_precompile_headers(${host} PRIVATE ${headers})
      set(_hloscope_pch_host_${key} ${host})
    endif()
    target_precompile_headers(${target} REUSE_FROM ${_hloscope_pch_host_${key}})
  endforeach()
  message(STATUS "hloscope: precompiled headers on (HLOSCOPE_PCH), ${host_count} shared")
endfunction()
