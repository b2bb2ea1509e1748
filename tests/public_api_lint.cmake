# The command-line client and the public headers use the public API only: cli/ includes nothing of
# the engine's stages (core, frontend, planner, engine), its compile line has no include directory
# inside the source tree but include/ (the build compiles it that way, this test says why when
# someone changes it), no public header includes an internal one or names an internal type (of
# namespace config only the functions of iputrain/config_loader.hpp are public), and
# each stage includes only the stages before it.
# Usage: cmake -DSRC=<source dir> -DBIN=<build dir> -P public_api_lint.cmake
set(failures "")
file(GLOB_RECURSE cli_sources "${SRC}/cli/*.cpp" "${SRC}/cli/*.hpp")
foreach(f IN LISTS cli_sources)
  file(STRINGS "${f}" hits REGEX "#include \"(core|frontend|planner|engine|api|grammar)/")
  foreach(h IN LISTS hits)
    string(APPEND failures "${f}: includes an internal header: ${h}\n")
  endforeach()
endforeach()
# The functions declared in iputrain/config_loader.hpp are the public part of namespace config: a
# public header may name them (`config::load(`), and nothing else of that namespace.
file(STRINGS "${SRC}/include/iputrain/config_loader.hpp" declarations REGEX "^[A-Za-z].*[a-z_]+\\(")
set(public_config "")
foreach(d IN LISTS declarations)
  string(REGEX MATCH "[a-z_]+\\(" name "${d}")
  list(APPEND public_config "${name}")
endforeach()
list(JOIN public_config "|" public_config)
string(REPLACE "(" "" public_config "${public_config}")
file(GLOB headers "${SRC}/include/iputrain/*.hpp")
set(inside "#include \"[^i]|#include \"i[^p]|(ir|planner|config|engine|data)::")
foreach(f IN LISTS headers)
  file(STRINGS "${f}" hits REGEX "${inside}")
  foreach(h IN LISTS hits)
    string(REGEX REPLACE "config::(${public_config})\\(" "" rest "${h}")
    if(rest MATCHES "${inside}")
      string(APPEND failures "${f}: reaches inside: ${h}\n")
    endif()
  endforeach()
endforeach()
# The stages depend downstream only: core on nothing, frontend on core, planner on core and frontend,
# engine on those three, api (the entry points that take a Config) on those four; none of them on cli/.
foreach(rule "core:frontend|planner|engine|api|cli" "frontend:planner|engine|api|cli" "planner:engine|api|cli" "engine:api|cli"
       "api:cli")
  string(REPLACE ":" ";" parts "${rule}")
  list(GET parts 0 stage)
  list(GET parts 1 banned)
  file(GLOB_RECURSE stage_sources "${SRC}/${stage}/*.cpp" "${SRC}/${stage}/*.hpp")
  foreach(f IN LISTS stage_sources)
    file(STRINGS "${f}" hits REGEX "#include \"(${banned})/")
    foreach(h IN LISTS hits)
      string(APPEND failures "${f}: ${stage} includes a later stage: ${h}\n")
    endforeach()
  endforeach()
endforeach()
# The command's include directories, from its compile command (any generator: compile_commands.json).
# (Any of its units, or of the REPL objects it links, iputrain_repl: with a unity build
# (cmake/unity.cmake) main.cpp is compiled inside a batch.)
file(STRINGS "${BIN}/compile_commands.json" includes REGEX "\"command\": .*iputrain_(cli|repl)\\.dir/[^\"]*\\.o")
if(NOT includes)
  message(FATAL_ERROR "${BIN}/compile_commands.json has no compile command of the command (iputrain_cli)")
endif()
string(REGEX MATCHALL "-I[^ ]+" dirs "${includes}")
foreach(d IN LISTS dirs)
  string(SUBSTRING "${d}" 2 -1 d)
  if(d MATCHES "^${SRC}" AND NOT d STREQUAL "${SRC}/include" AND NOT d MATCHES "^${BIN}")
    string(APPEND failures "the CLI compiles with the internal include directory ${d}\n")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
