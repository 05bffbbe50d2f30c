# The layers of src/ (docs/architecture.md), enforced by the build.
#
#   ir -> semantics -> analysis -> lower -> codegen -> driver -> lang -> text, atl
#                                       \-> validate (optional) -/
#
# Each folder of src/ is one OBJECT library, tessera_<layer>, compiled with only the
# folders it may include on its include path: the include root of a layer is a directory
# of links to its own folder and to the folders of the layers below it
# (${PROJECT_BINARY_DIR}/layers/<layer>/), so `#include "codegen/CodeGenC.h"` in a file of
# src/lower does not compile. The public headers (include/tessera/) are visible to every
# layer.
#
# Each layer from ir to driver is also linked, with the layers below it and nothing else,
# into a shared library with --no-undefined (tessera_layer_check_<layer>, built with the
# library), so that a call into a higher layer fails to link even when no header of that
# layer was included. The front-ends (lang, text) are checked together, as the library
# itself.

set(TESSERA_LAYER_ROOT "${PROJECT_BINARY_DIR}/layers")

# tessera_layer_include_root(<source dir> <root> <layer> [<layer below>...]): makes <root> a
# directory of links to <source dir>/src/<layer> and to the folders of the layers below.
function(tessera_layer_include_root source_dir root layer)
  file(REMOVE_RECURSE "${root}")
  file(MAKE_DIRECTORY "${root}")
  foreach(visible IN ITEMS ${layer} ${ARGN})
    file(CREATE_LINK "${source_dir}/src/${visible}" "${root}/${visible}" SYMBOLIC)
  endforeach()
endfunction()

# tessera_add_layer(<layer> [BELOW <layer>...])
#   <layer>: a folder of src/; BELOW: the layers its files may include and call.
function(tessera_add_layer layer)
  cmake_parse_arguments(L "" "" "BELOW" ${ARGN})
  set(root "${TESSERA_LAYER_ROOT}/${layer}")
  tessera_layer_include_root("${PROJECT_SOURCE_DIR}" "${root}" ${layer} ${L_BELOW})

  file(GLOB sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/${layer}/*.cpp")
  add_library(tessera_${layer} OBJECT ${sources})
  target_include_directories(tessera_${layer} PRIVATE "${root}" "${PROJECT_SOURCE_DIR}/include")
  target_compile_features(tessera_${layer} PRIVATE cxx_std_20)
  set_target_properties(tessera_${layer} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  tessera_enable_warnings(tessera_${layer})

  set(TESSERA_LAYER_${layer}_BELOW ${L_BELOW} PARENT_SCOPE)
endfunction()

# tessera_check_layer_links(<layer>): the shared library of <layer> and the layers below it,
# linked with --no-undefined (GNU and LLVM linkers on ELF platforms).
function(tessera_check_layer_links layer)
  if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
    return()
  endif()
  set(objects)
  foreach(l IN LISTS TESSERA_LAYER_${layer}_BELOW ITEMS ${layer})
    list(APPEND objects $<TARGET_OBJECTS:tessera_${l}>)
  endforeach()
  add_library(tessera_layer_check_${layer} SHARED ${objects})
  target_link_libraries(tessera_layer_check_${layer} PRIVATE ${CMAKE_DL_LIBS} Threads::Threads m)
  target_link_options(tessera_layer_check_${layer} PRIVATE "LINKER:--no-undefined")
  set_target_properties(tessera_layer_check_${layer} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY "${TESSERA_LAYER_ROOT}/checks")
endfunction()
