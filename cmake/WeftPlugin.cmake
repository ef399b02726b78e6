# Every Weft plugin (backends today, rule plugins next) is built by weft_plugin(), so that each
# leaves the same way: hidden visibility, no undefined symbols, and a generated version script
# that exports its entry symbols and nothing else. Without the script a plugin exports the weak
# template instances of libstdc++ it uses (std::deque<...>::_M_push_back_aux...), which the
# dynamic linker then binds across plugins and libweft: two plugins built against different
# libstdc++ versions would share one copy. tests/plugins checks every plugin registered here.

# weft_plugin(target OUTPUT_NAME file-stem ENTRIES symbol... SOURCES ... [LIBS ...]
#             [OUTPUT_DIR dir]): builds <dir>/lib<file-stem>.so (dir defaults to the build's
# lib/, next to libweft, where the loader looks) exporting exactly ENTRIES.
function(weft_plugin target)
  cmake_parse_arguments(ARG "" "OUTPUT_NAME;OUTPUT_DIR" "ENTRIES;SOURCES;LIBS" ${ARGN})
  if(NOT ARG_OUTPUT_NAME OR NOT ARG_ENTRIES OR NOT ARG_SOURCES)
    message(FATAL_ERROR "weft_plugin(${target}) needs OUTPUT_NAME, ENTRIES and SOURCES")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR ${PROJECT_BINARY_DIR}/lib)
  endif()
  # The export map: the entry symbols global, everything else (our code, libstdc++'s template
  # instances, static libraries linked in) local.
  set(map ${CMAKE_CURRENT_BINARY_DIR}/${target}.map)
  list(JOIN ARG_ENTRIES "; " globals)
  file(CONFIGURE OUTPUT ${map} CONTENT "{\n  global: ${globals};\n  local: *;\n};\n" @ONLY)

  add_library(${target} MODULE ${ARG_SOURCES})
  weft_defaults(${target})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/api/include)
  target_link_libraries(${target} PRIVATE ${ARG_LIBS})
  target_link_options(${target} PRIVATE -Wl,--no-undefined -Wl,--version-script=${map})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME ${ARG_OUTPUT_NAME}
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR}
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${map}
    WEFT_PLUGIN_ENTRIES "${ARG_ENTRIES}")
  set_property(GLOBAL APPEND PROPERTY WEFT_PLUGIN_TARGETS ${target})
endfunction()

# weft_backend_plugin(name SOURCES ... [LIBS ...]): libweft-backend-<name>.so, exporting only
# its weft_backend_plugin_v1 entry (SPEC §6.6). Backends read their WEFT_* variables through
# param::RawValue, which falls back to the tuning file: each links its own copy of the loader.
function(weft_backend_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  weft_plugin(weft-backend-${name} OUTPUT_NAME weft-backend-${name}
              ENTRIES weft_backend_plugin_v1 SOURCES ${ARG_SOURCES} LIBS ${ARG_LIBS} weft_tuning)
endfunction()

# weft_rules_plugin(name SOURCES ... [LIBS ...] [OUTPUT_DIR dir]): libweft-rules-<name>.so,
# exporting only its weft_rules_plugin_v1 entry (weft/rules_plugin.h).
function(weft_rules_plugin name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIR" "SOURCES;LIBS" ${ARGN})
  set(dir)
  if(ARG_OUTPUT_DIR)
    set(dir OUTPUT_DIR ${ARG_OUTPUT_DIR})
  endif()
  weft_plugin(weft-rules-${name} OUTPUT_NAME weft-rules-${name}
              ENTRIES weft_rules_plugin_v1 SOURCES ${ARG_SOURCES} LIBS ${ARG_LIBS} ${dir})
endfunction()
