# Dependency lookup that fails early with the Debian package to install.
#
# CMake's own "Could not find a package configuration file provided by absl" message names
# files and variables; a new contributor needs the package name instead. Every dependency of
# hloscope is a Debian 12 package, so each lookup carries the package that provides it.

# hloscope_require(<Package> <debian-package> [find_package arguments...])
#   find_package(<Package> ... QUIET); stops configuration naming <debian-package> if missing.
#   A macro, not a function, so the variables find_package sets stay visible to the caller.
macro(hloscope_require _hr_pkg _hr_deb)
  find_package(${_hr_pkg} ${ARGN} QUIET)
  if(NOT ${_hr_pkg}_FOUND)
    hloscope_missing("${_hr_pkg}" "${_hr_deb}")
  endif()
endmacro()

# hloscope_require_pkgconfig(<target> <pkg-config module> <debian-package>)
#   For libraries that ship only a .pc file (re2 on Debian 12). Defines <target> (e.g. re2::re2)
#   as an alias of the imported PkgConfig:: target unless a CMake config already provided it.
macro(hloscope_require_pkgconfig _hp_target _hp_module _hp_deb)
  if(NOT TARGET ${_hp_target})
    if(NOT PKG_CONFIG_FOUND)
      find_package(PkgConfig QUIET)
      if(NOT PKG_CONFIG_FOUND)
        hloscope_missing("pkg-config (needed to find ${_hp_module})" "pkg-config")
      endif()
    endif()
    # GLOBAL so the alias below is allowed and visible to every directory.
    pkg_check_modules(HLOSCOPE_PC_${_hp_module} QUIET IMPORTED_TARGET GLOBAL ${_hp_module})
    if(NOT HLOSCOPE_PC_${_hp_module}_FOUND)
      hloscope_missing("${_hp_module} (pkg-config module)" "${_hp_deb}")
    endif()
    add_library(${_hp_target} ALIAS PkgConfig::HLOSCOPE_PC_${_hp_module})
  endif()
endmacro()

# hloscope_require_program(<cache var> <debian-package> <description> NAMES ... [PATHS ...])
#   find_program into a cache variable the user can override with -D<var>=/path.
function(hloscope_require_program var deb description)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "" "NAMES;PATHS")
  # Prefer the given PATHS (the llvm-14 bin dir) over whatever else is on PATH: a FileCheck
  # from another LLVM version may disagree with the CHECK syntax the tests were written for.
  find_program(${var} NAMES ${arg_NAMES} PATHS ${arg_PATHS} NO_DEFAULT_PATH
               DOC "${description}")
  find_program(${var} NAMES ${arg_NAMES} DOC "${description}")
  # find_program keeps whatever the user set; a wrong -D path should fail here, not in a test.
  if(NOT ${var} OR NOT EXISTS "${${var}}")
    list(JOIN arg_NAMES " or " names)
    hloscope_missing("${description} (${names})" "${deb}" "-D${var}=/path/to/it")
  endif()
endfunction()

# hloscope_missing(<what> <debian-package> [<override hint>])
function(hloscope_missing what deb)
  set(hint "")
  if(ARGC GREATER 2)
    set(hint "\nOr point CMake at it with ${ARGV2}.")
  endif()
  message(FATAL_ERROR
    "hloscope: ${what} was not found.\n"
    "Install the Debian package '${deb}':\n"
    "    sudo apt-get install ${deb}\n"
    "(scripts/test and scripts/demo install every dependency themselves).${hint}")
endfunction()
