# install(): what `cmake --install` and the .deb put where. Two components:
#   runtime  bin/pt2onnx, the man page, bash and zsh completions, the JSON Schemas;
#   dev      the converter library (lib/, one static archive per stage), include/pt2onnx.h and
#            the CMake package (find_package(pt2onnx CONFIG) with pt2onnx_convert()).
# tools/bundle_launcher is not installed: it is our test harness for kernel bundles (it replays
# them against the tests' reference files), not a tool with a user-facing contract.
include(CMakePackageConfigHelpers)

set(PT2ONNX_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pt2onnx)
get_property(PT2ONNX_STAGE_LIBRARIES GLOBAL PROPERTY PT2ONNX_STAGE_LIBRARIES)  # pt2onnx_module() lists them

install(TARGETS pt2onnx EXPORT pt2onnx-targets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS pt2onnx_lib ${PT2ONNX_STAGE_LIBRARIES} EXPORT pt2onnx-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(FILES src/pt2onnx.h ${PROJECT_BINARY_DIR}/generated/pt2onnx_version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
# pt2onnx.h includes the input limits (pt2onnx::limits(), common/limits.h), the error type they
# throw and the defaults it names (opsets, --hiera functions); they live under include/pt2onnx/,
# which the exported targets add to the include path.
install(FILES src/common/limits.h src/common/error.h src/common/opsets.h src/common/function_defaults.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pt2onnx/common COMPONENT dev)

install(DIRECTORY schema/ DESTINATION ${CMAKE_INSTALL_DATADIR}/pt2onnx/schema COMPONENT runtime
        FILES_MATCHING PATTERN "*.schema.json")
install(FILES ${PT2ONNX_DOCS_DIR}/pt2onnx.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
install(FILES ${PT2ONNX_DOCS_DIR}/pt2onnx.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME pt2onnx COMPONENT runtime)
# Debian's zsh searches vendor-completions; other systems' site-functions is set by the user.
set(PT2ONNX_ZSH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions
    CACHE STRING "where the zsh completion _pt2onnx goes, relative to the prefix")
install(FILES ${PT2ONNX_DOCS_DIR}/_pt2onnx DESTINATION ${PT2ONNX_ZSH_COMPLETION_DIR} COMPONENT runtime)

install(EXPORT pt2onnx-targets NAMESPACE pt2onnx:: DESTINATION ${PT2ONNX_CMAKE_INSTALL_DIR} COMPONENT dev)
configure_package_config_file(cmake/pt2onnxConfig.cmake.in ${PROJECT_BINARY_DIR}/cmake/pt2onnxConfig.cmake
                              INSTALL_DESTINATION ${PT2ONNX_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/pt2onnxConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/pt2onnxConfig.cmake ${PROJECT_BINARY_DIR}/cmake/pt2onnxConfigVersion.cmake
              cmake/pt2onnx_convert.cmake
        DESTINATION ${PT2ONNX_CMAKE_INSTALL_DIR} COMPONENT dev)
