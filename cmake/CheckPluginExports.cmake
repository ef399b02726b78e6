# cmake -DNM=<nm> -DPLUGIN=<file.so> -DENTRIES=<a;b> -P CheckPluginExports.cmake
# Fails unless the dynamic symbol table of PLUGIN defines exactly ENTRIES: a symbol more is a
# leak through the plugin boundary (a missing export map), a symbol less a plugin no loader can
# enter. Run by tests/plugins for every plugin weft_plugin() built.
foreach(var NM PLUGIN ENTRIES)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CheckPluginExports: ${var} not given")
  endif()
endforeach()
execute_process(COMMAND ${NM} -D --defined-only ${PLUGIN}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${PLUGIN} failed (${rc}): ${err}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(exported "")
foreach(line IN LISTS lines)
  # "<address> <type> <name>"; the name is the last field.
  if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] +([^ ]+)$")
    list(APPEND exported ${CMAKE_MATCH_1})
  endif()
endforeach()
set(extra ${exported})
list(REMOVE_ITEM extra ${ENTRIES})
set(missing ${ENTRIES})
if(exported)
  list(REMOVE_ITEM missing ${exported})
endif()
# One line per finding (STATUS lines are never re-wrapped), then the verdict.
foreach(sym IN LISTS extra)
  message(STATUS "exported but not an entry: ${sym}")
endforeach()
foreach(sym IN LISTS missing)
  message(STATUS "missing entry: ${sym}")
endforeach()
if(extra OR missing)
  list(LENGTH extra n_extra)
  list(LENGTH missing n_missing)
  message(FATAL_ERROR "${PLUGIN} must export exactly ${ENTRIES}: ${n_extra} symbol(s) more, "
                      "${n_missing} missing (listed above)")
endif()
message(STATUS "${PLUGIN} exports exactly ${ENTRIES}")
