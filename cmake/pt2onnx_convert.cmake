# pt2onnx_convert(<target> [INPUT model.pt2] OUTPUT model.onnx
#                 [OPSET n] [HIERA type...] [COMPILE type...] [KERNELS_DIR dir] [CONFIG file]
#                 [EXTERNAL_DATA] [ARGS extra pt2onnx arguments...])
#
# Adds a custom command that converts INPUT (relative: to the current source dir; may be left to
# the CONFIG's "input", then only the depfile names the archive) into OUTPUT
# (relative: to the current binary dir), and a target <target> (built by ALL) that depends on it.
# Declared outputs: OUTPUT; OUTPUT.data with EXTERNAL_DATA; for each COMPILE type the manifest of
# its kernel bundle, KERNELS_DIR/<class>.kernels/manifest.json (KERNELS_DIR defaults to OUTPUT's
# folder; <class> is the type's name after its last '.', the default --function-name).
# pt2onnx writes a depfile (--depfile) naming the archive, the config and the files the config
# names, so Ninja and Make reconvert exactly when one of them (or pt2onnx itself) changes.
# The list of declared outputs is in the target's property PT2ONNX_OUTPUTS.
#
# Ninja checks that every output the depfile mentions was declared: a model whose weights pass
# the 2 GB protobuf limit (written with external data even without EXTERNAL_DATA) or a COMPILE
# type whose instances have several distinct bodies (bundles <class>_1.kernels, ...) make Ninja
# stop with "depfile mentions ... as an output, but no such output was declared": give
# EXTERNAL_DATA, or name the functions with ARGS --function-name.
include_guard(GLOBAL)

function(pt2onnx_convert target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "EXTERNAL_DATA" "INPUT;OUTPUT;OPSET;CONFIG;KERNELS_DIR" "HIERA;COMPILE;ARGS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pt2onnx_convert(${target}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_OUTPUT)
    message(FATAL_ERROR "pt2onnx_convert(${target}): OUTPUT is required")
  endif()
  if(NOT arg_INPUT AND NOT arg_CONFIG)
    message(FATAL_ERROR "pt2onnx_convert(${target}): INPUT is required (or a CONFIG that names the input)")
  endif()
  if(NOT TARGET pt2onnx::pt2onnx)
    message(FATAL_ERROR "pt2onnx_convert(${target}): no target pt2onnx::pt2onnx; call find_package(pt2onnx) first")
  endif()

  cmake_path(ABSOLUTE_PATH arg_OUTPUT BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE OUTPUT_VARIABLE output)
  set(outputs "${output}")
  set(command pt2onnx::pt2onnx -o "${output}" -q)
  set(depends "")
  set(shown "${arg_CONFIG}")
  if(arg_INPUT)
    cmake_path(ABSOLUTE_PATH arg_INPUT BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE input)
    list(APPEND command "${input}")
    list(APPEND depends "${input}")
    set(shown "${arg_INPUT}")
  endif()
  if(DEFINED arg_OPSET)
    list(APPEND command --opset ${arg_OPSET})
  endif()
  foreach(type IN LISTS arg_HIERA)
    list(APPEND command --hiera "${type}")
  endforeach()
  if(arg_CONFIG)
    cmake_path(ABSOLUTE_PATH arg_CONFIG BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE config)
    list(APPEND command --config "${config}")
    list(APPEND depends "${config}")
  endif()
  if(arg_EXTERNAL_DATA)
    list(APPEND command --external-data)
    list(APPEND outputs "${output}.data")
  endif()
  if(arg_COMPILE)
    if(arg_KERNELS_DIR)
      cmake_path(ABSOLUTE_PATH arg_KERNELS_DIR BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE
                 OUTPUT_VARIABLE kernels_dir)
    else()
      cmake_path(GET output PARENT_PATH kernels_dir)
    endif()
    list(APPEND command --kernels-dir "${kernels_dir}")
    foreach(type IN LISTS arg_COMPILE)
      list(APPEND command --compile "${type}")
      string(REGEX REPLACE "^.*\\." "" class "${type}")
      list(APPEND outputs "${kernels_dir}/${class}.kernels/manifest.json")
    endforeach()
  endif()
  set(depfile "${CMAKE_CURRENT_BINARY_DIR}/${target}.pt2onnx.d")
  list(APPEND command --depfile "${depfile}" ${arg_ARGS})

  # Make, unlike Ninja, does not create the folders of outputs.
  cmake_path(GET output PARENT_PATH output_dir)
  add_custom_command(OUTPUT ${outputs}
                     COMMAND ${CMAKE_COMMAND} -E make_directory "${output_dir}"
                     COMMAND ${command}
                     DEPENDS ${depends} pt2onnx::pt2onnx
                     DEPFILE "${depfile}"
                     COMMENT "pt2onnx: ${shown} -> ${arg_OUTPUT}"
                     VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${outputs})
  set_target_properties(${target} PROPERTIES PT2ONNX_OUTPUTS "${outputs}")
endfunction()
