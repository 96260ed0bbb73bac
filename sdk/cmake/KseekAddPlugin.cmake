# kseek_add_plugin(): builds an operator plugin as a MODULE library against kernelseek::sdk, with its seed
# kernels, candidate headers and question packs embedded. The same helper serves in-tree and out-of-tree
# plugins; it must never reach into the core.
#
#   kseek_add_plugin(<target>
#     SOURCES <file>...                      # the plugin's C++ sources
#     [EMBED_FUNCTION <ns::function>]        # generated: std::vector<kseek::SourceFile> ns::function()
#     [EMBED <include-name>=<path>...]       # files returned by that function (seeds, headers, packs)
#     [OUTPUT_DIRECTORY <dir>]               # where the .so lands (default: the current binary dir)
#     [INSTALL_DESTINATION <dir>])           # install() it there when given
set(_KSEEK_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/KseekEmbed.cmake")

function(kseek_embed_files target function)
  string(MAKE_C_IDENTIFIER "${function}" _function_id)
  set(_out "${CMAKE_CURRENT_BINARY_DIR}/${target}_${_function_id}_embedded.cpp")
  set(_files "")
  set(_deps "")
  foreach(_pair IN LISTS ARGN)
    string(FIND "${_pair}" "=" _eq)
    if(_eq LESS 1)
      message(FATAL_ERROR "kseek_embed_files(${target}): '${_pair}' is not <include-name>=<path>")
    endif()
    string(SUBSTRING "${_pair}" 0 ${_eq} _name)
    math(EXPR _start "${_eq} + 1")
    string(SUBSTRING "${_pair}" ${_start} -1 _path)
    cmake_path(ABSOLUTE_PATH _path BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    if(NOT EXISTS "${_path}")
      message(FATAL_ERROR "kseek_embed_files(${target}): ${_path} does not exist")
    endif()
    list(APPEND _files "${_name}=${_path}")
    list(APPEND _deps "${_path}")
  endforeach()
  list(JOIN _files "|" _files_arg)  # "|" survives the command line; ";" would not
  add_custom_command(OUTPUT "${_out}"
    COMMAND "${CMAKE_COMMAND}" "-DKSEEK_EMBED_OUT=${_out}" "-DKSEEK_EMBED_FUNCTION=${function}"
            "-DKSEEK_EMBED_FILES=${_files_arg}" -P "${_KSEEK_EMBED_SCRIPT}"
    DEPENDS ${_deps} "${_KSEEK_EMBED_SCRIPT}"
    COMMENT "Embedding ${target} files"
    VERBATIM)
  target_sources(${target} PRIVATE "${_out}")
endfunction()

function(kseek_add_plugin target)
  cmake_parse_arguments(ARG "" "EMBED_FUNCTION;OUTPUT_DIRECTORY;INSTALL_DESTINATION" "SOURCES;EMBED" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "kseek_add_plugin(${target}): SOURCES is required")
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE kernelseek::sdk)
  target_compile_features(${target} PRIVATE cxx_std_20)
  # Only the three extern "C" entry points are exported; nothing else of the plugin leaks into `kseek`.
  set_target_properties(${target} PROPERTIES PREFIX "" CXX_VISIBILITY_PRESET hidden
                                             VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  if(ARG_EMBED)
    if(NOT ARG_EMBED_FUNCTION)
      message(FATAL_ERROR "kseek_add_plugin(${target}): EMBED needs EMBED_FUNCTION")
    endif()
    kseek_embed_files(${target} "${ARG_EMBED_FUNCTION}" ${ARG_EMBED})
  endif()
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  endif()
  if(ARG_INSTALL_DESTINATION)
    install(TARGETS ${target} LIBRARY DESTINATION "${ARG_INSTALL_DESTINATION}")
  endif()
endfunction()
