# Compile settings shared by every Weft target: warnings as errors for our code, hidden
# visibility (the C ABI exports explicitly), and the sanitizers when asked for.

if(WEFT_SANITIZER)
  set(WEFT_SANITIZER_FLAGS -fsanitize=${WEFT_SANITIZER} -fno-omit-frame-pointer
                           -fno-sanitize-recover=undefined)
  add_compile_options(${WEFT_SANITIZER_FLAGS})
  add_link_options(${WEFT_SANITIZER_FLAGS})
endif()

set(CMAKE_CXX_VISIBILITY_PRESET hidden)
set(CMAKE_C_VISIBILITY_PRESET hidden)
set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)

function(weft_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wno-missing-field-initializers)
  # GCC 12 at -O3 reports -Wrestrict inside libstdc++'s own inlined `"literal" + std::string`
  # (GCC bug 105329/105651): a false positive in the system headers, not in our code, and it
  # only fires in the Release build. Silence just that warning for GCC < 13.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-error=restrict -Wno-restrict)
  endif()
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
endfunction()
