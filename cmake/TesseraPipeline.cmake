# tessera_add_pipeline(<target> <file.tsr> [FUNCTION_NAME <name>] [TARGET <target string>])
#
# Compiles a .tsr pipeline ahead of time at build time with the `tessera` command and adds
# the generated C source and header to <target>:
#
#   <binary dir>/tessera_pipelines/<name>.c   int <name>(inputs..., params..., output)
#   <binary dir>/tessera_pipelines/<name>.h   include it as "<name>.h"
#
# The C is regenerated when the .tsr file or the tessera command changes (the command
# writes a depfile). <name> defaults to the file's name without extension. TARGET picks the
# instruction set for the pipeline (Halide's syntax, e.g. x86-64-linux-avx2-fma, or host):
# the generated C is compiled with the flags `tessera flags --target` gives for it (with an
# installed Tessera; in a build that adds Tessera with add_subdirectory the command does not
# exist yet when CMake configures, and TARGET is ignored with a warning).

include_guard(GLOBAL)

function(tessera_add_pipeline target tsr_file)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "FUNCTION_NAME;TARGET" "")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tessera_add_pipeline: unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tessera_add_pipeline: ${target} is not a target")
  endif()
  if(NOT TARGET Tessera::tessera_cli)
    message(FATAL_ERROR "tessera_add_pipeline: the tessera command (Tessera::tessera_cli) is not available")
  endif()
  get_filename_component(tsr "${tsr_file}" ABSOLUTE)
  if(NOT ARG_FUNCTION_NAME)
    get_filename_component(ARG_FUNCTION_NAME "${tsr}" NAME_WE)
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/tessera_pipelines")
  set(out "${dir}/${ARG_FUNCTION_NAME}")
  set(args compile "${tsr}" -o "${out}" --emit c,h --name "${ARG_FUNCTION_NAME}" --depfile "${out}.d")
  if(ARG_TARGET)
    list(APPEND args --target "${ARG_TARGET}")
  endif()
  file(MAKE_DIRECTORY "${dir}")
  add_custom_command(
    OUTPUT "${out}.c" "${out}.h"
    COMMAND Tessera::tessera_cli ${args}
    DEPENDS "${tsr}" Tessera::tessera_cli
    DEPFILE "${out}.d"
    COMMENT "Tessera: compiling ${tsr_file} to ${ARG_FUNCTION_NAME}.c"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}.c" "${out}.h")
  if(ARG_TARGET)
    get_target_property(imported Tessera::tessera_cli IMPORTED)
    if(imported)
      get_target_property(cli Tessera::tessera_cli LOCATION)
      execute_process(
        COMMAND "${cli}" flags --target "${ARG_TARGET}"
        OUTPUT_VARIABLE target_flags OUTPUT_STRIP_TRAILING_WHITESPACE
        ERROR_VARIABLE target_error RESULT_VARIABLE target_rc)
      if(NOT target_rc EQUAL 0)
        message(FATAL_ERROR "tessera_add_pipeline: TARGET ${ARG_TARGET}: ${target_error}")
      endif()
      separate_arguments(target_flags UNIX_COMMAND "${target_flags}")
      set_source_files_properties("${out}.c" TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "${target_flags}")
    else()
      message(WARNING "tessera_add_pipeline: TARGET ${ARG_TARGET} is applied only with an installed Tessera")
    endif()
  endif()
  target_include_directories(${target} PRIVATE "${dir}")
  # The generated C uses OpenMP for parallel loops (without it they run serially) and libm.
  find_package(OpenMP QUIET COMPONENTS C)
  if(OpenMP_C_FOUND)
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_C)
  endif()
  if(UNIX AND NOT APPLE)
    target_link_libraries(${target} PRIVATE m)
  endif()
endfunction()
