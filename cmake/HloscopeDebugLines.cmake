# HLOSCOPE_DEBUG_LINES: line tables only (-g1) instead of full debug info (-g) in RelWithDebInfo
# and Debug builds, for a faster clean build (CI; docs/testing.md, "Build time").
#
# At -O2, -g's variable locations (var-tracking) cost about a fifth of each compile and make
# every object and executable larger to link. -g1 changes no generated code and no warning, and
# keeps what a crash's backtrace needs: function names, files and lines. What it drops is the
# debugger's view of local variables, which CI never uses.
#
# Off by default, and ignored by a tree that compiles through a compiler launcher (ccache): that
# is a developer's tree, which wants full debug info, and its cache is shared with builds that
# use -g. scripts/test, which builds from scratch without ccache, turns it on.
option(HLOSCOPE_DEBUG_LINES "Line tables only (-g1) in RelWithDebInfo and Debug builds (CI)" OFF)
if(HLOSCOPE_DEBUG_LINES)
  if(CMAKE_CXX_COMPILER_LAUNCHER)
    message(STATUS "hloscope: HLOSCOPE_DEBUG_LINES ignored: this build compiles through "
                   "CMAKE_CXX_COMPILER_LAUNCHER (${CMAKE_CXX_COMPILER_LAUNCHER})")
  else()
    # After CMAKE_CXX_FLAGS_<CONFIG>'s -g on the command line, so it is the level GCC uses.
    add_compile_options($<$<CONFIG:RelWithDebInfo,Debug>:-g1>)
  endif()
endif()
