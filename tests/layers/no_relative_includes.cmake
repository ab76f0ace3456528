# Fails, naming each offending line, if a source of a layer includes a path with "../": such an
# include is resolved beside the including file and would reach past the layer's include view.
file(GLOB_RECURSE sources LIST_DIRECTORIES false
     ${ROOT}/base/* ${ROOT}/config/* ${ROOT}/npu/* ${ROOT}/storage/* ${ROOT}/llm/* ${ROOT}/agent/*
     ${ROOT}/actors/* ${ROOT}/runtime/* ${ROOT}/server/* ${ROOT}/app/*)
list(FILTER sources INCLUDE REGEX "\\.(cpp|hpp|h)$")
set(offenders)
foreach(source ${sources})
  file(STRINGS ${source} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"[^\"]*\\.\\./")
  foreach(line ${lines})
    file(RELATIVE_PATH rel ${ROOT} ${source})
    list(APPEND offenders "${rel}: ${line}")
  endforeach()
endforeach()
list(LENGTH sources count)
if(count LESS 100)
  message(FATAL_ERROR "found only ${count} sources under ${ROOT}: wrong ROOT?")
endif()
if(offenders)
  list(JOIN offenders "\n  " text)
  message(FATAL_ERROR "relative includes step around the layer views:\n  ${text}")
endif()
message(STATUS "${count} layer sources, none includes a path with ../")
