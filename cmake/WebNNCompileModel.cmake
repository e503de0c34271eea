# webnn_compile_model(<target> SOURCE <model> [OUTPUT <file.wnn>]
#                     [FLAGS <webnnc compile flags>...] [DEPENDS <files>...])
#
# Compiles a model (.webnn, .json, .onnx, .mlir) to a .wnn artifact at build
# time with webnnc, as IREE's iree_bytecode_module does: one build rule per
# model, so `ninja -j` compiles several at once and a model is recompiled
# only when it, webnnc, or a file in DEPENDS (weights sidecars, ONNX external
# data) changes. <target> (built by default) stands for the artifact; its
# WEBNN_ARTIFACT property holds the artifact's path. OUTPUT defaults to
# <model name>.wnn in the current build folder. Installed with the package
# (find_package(webnn) in a compiler build) and usable in this tree.
function(webnn_compile_model target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE;OUTPUT" "FLAGS;DEPENDS")
  if(ARG_UNPARSED_ARGUMENTS OR NOT ARG_SOURCE)
    message(FATAL_ERROR "webnn_compile_model(${target} SOURCE <model> [OUTPUT <file.wnn>] [FLAGS ...] "
                        "[DEPENDS ...]): got ${ARGN}")
  endif()
  if(NOT TARGET webnn::webnnc)
    message(FATAL_ERROR "webnn_compile_model(${target}): no webnn::webnnc (a runtime-only webnn has no compiler)")
  endif()
  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(ARG_OUTPUT)
    get_filename_component(output "${ARG_OUTPUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    get_filename_component(name "${source}" NAME_WE)
    set(output "${CMAKE_CURRENT_BINARY_DIR}/${name}.wnn")
  endif()
  add_custom_command(OUTPUT "${output}"
    COMMAND webnn::webnnc compile "${source}" -o "${output}" ${ARG_FLAGS}
    DEPENDS "${source}" "$<TARGET_FILE:webnn::webnnc>" ${ARG_DEPENDS}
    COMMENT "webnnc compile ${ARG_SOURCE}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS "${output}")
  set_target_properties(${target} PROPERTIES WEBNN_ARTIFACT "${output}")
endfunction()
