# pt2onnx_convert(<target> [INPUT model.pt2] OUTPUT model.onnx
#                 [OPSET n] [HIERA type...] [COMPILE type...] [KERNELS_DIR dir] [CONFIG file]
#                 [EXTERNAL_DATA] [ARGS extra pt2onnx arguments...])
#
# Adds a custom command that converts INPUT (relative: to the current source dir; may be left to
# the CONFIG's "input") into OUTPUT (relative: to the current binary dir), and a target <target>
# (built by ALL) that depends on it.
# Declared outputs: exactly the files the conversion writes, as `pt2onnx --list-outputs` prints
# them at configure time (the .onnx; its .data file when one is written, with EXTERNAL_DATA or
# when the weights pass 2 GB; every file of each COMPILE kernel bundle, named as the functions
# are). The archive must therefore exist at configure time; CMake re-runs when it, the config or
# pt2onnx changes, so the list stays exact. NVRTC is not needed to list: without it the build
# step of a COMPILE conversion fails with pt2onnx's exit 6 and writes nothing.
# pt2onnx writes a depfile (--depfile) naming the archive, the config and the files the config
# names, so Ninja and Make reconvert exactly when one of them (or pt2onnx itself) changes.
# The list of declared outputs is in the target's property PT2ONNX_OUTPUTS.
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
  set(options -o "${output}")
  set(depends "")
  set(shown "${arg_CONFIG}")
  if(arg_INPUT)
    cmake_path(ABSOLUTE_PATH arg_INPUT BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE input)
    list(APPEND options "${input}")
    list(APPEND depends "${input}")
    set(shown "${arg_INPUT}")
  endif()
  if(DEFINED arg_OPSET)
    list(APPEND options --opset ${arg_OPSET})
  endif()
  foreach(type IN LISTS arg_HIERA)
    list(APPEND options --hiera "${type}")
  endforeach()
  if(arg_CONFIG)
    cmake_path(ABSOLUTE_PATH arg_CONFIG BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE config)
    list(APPEND options --config "${config}")
    list(APPEND depends "${config}")
  endif()
  if(arg_EXTERNAL_DATA)
    list(APPEND options --external-data)
  endif()
  if(arg_KERNELS_DIR)
    cmake_path(ABSOLUTE_PATH arg_KERNELS_DIR BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE
               OUTPUT_VARIABLE kernels_dir)
    list(APPEND options --kernels-dir "${kernels_dir}")
  endif()
  foreach(type IN LISTS arg_COMPILE)
    list(APPEND options --compile "${type}")
  endforeach()
  list(APPEND options ${arg_ARGS})

  # The outputs, from pt2onnx itself (nothing is written). Re-run when what decides them changes:
  # the archive (also one named only by the config), the config, pt2onnx.
  get_target_property(exe pt2onnx::pt2onnx LOCATION)
  execute_process(COMMAND "${exe}" ${options} --list-outputs WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
                  OUTPUT_VARIABLE listed ERROR_VARIABLE error RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    string(STRIP "${error}" error)
    message(FATAL_ERROR "pt2onnx_convert(${target}): pt2onnx --list-outputs failed (exit ${status}): ${error}")
  endif()
  string(STRIP "${listed}" listed)
  string(REPLACE "\n" ";" outputs "${listed}")
  set(configure_depends ${depends} "${exe}")
  if(arg_CONFIG AND NOT arg_INPUT)
    file(READ "${config}" config_text)
    string(JSON config_input ERROR_VARIABLE no_input GET "${config_text}" input)
    if(NOT no_input)
      cmake_path(GET config PARENT_PATH config_dir)
      cmake_path(ABSOLUTE_PATH config_input BASE_DIRECTORY "${config_dir}" NORMALIZE)
      list(APPEND configure_depends "${config_input}")
    endif()
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${configure_depends})

  set(depfile "${CMAKE_CURRENT_BINARY_DIR}/${target}.pt2onnx.d")
  set(command pt2onnx::pt2onnx ${options} -q --depfile "${depfile}")

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
