# weft_backend_plugin(name SOURCES ...): builds libweft-backend-<name>.so next to libweft, where
# the loader looks, exporting only its weft_backend_plugin_v1 entry symbol.
function(weft_backend_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  set(target weft-backend-${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  weft_defaults(${target})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/api/include)
  target_link_libraries(${target} PRIVATE ${ARG_LIBS})
  target_link_options(${target} PRIVATE -Wl,--no-undefined)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME weft-backend-${name}
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
endfunction()
