# `cpack -G DEB` (or `cmake --build build --target package`): two Debian packages from the
# install() components, versioned by project(VERSION):
#   pt2onnx      the converter, man page, completions and JSON Schemas; Depends computed by
#                dpkg-shlibdeps from the libraries the binary links;
#   pt2onnx-dev  the C++ library, header and CMake package; Depends on pt2onnx and on the -dev
#                packages the package's find_dependency() calls need.
# Each also carries the Debian copyright file and changelog that lintian asks of every package.
# Who answers for the packages, declared once: the Maintainer field, the changelog trailer and the
# copyright file's Upstream-Contact. The default is the identity the project's commits carry; a
# distributor sets their own (-DPT2ONNX_MAINTAINER="Name <mail>").
set(PT2ONNX_MAINTAINER "pt2onnx dev <dev@pt2onnx.invalid>" CACHE STRING "Maintainer of the .deb packages")
# The project has no public home yet; the Homepage field is written only when one is given.
set(PT2ONNX_HOMEPAGE "" CACHE STRING "Homepage field of the .deb packages (none when empty)")
set(PT2ONNX_PACKAGING_DIR ${PROJECT_BINARY_DIR}/packaging)
configure_file(packaging/changelog.in ${PT2ONNX_PACKAGING_DIR}/changelog @ONLY)
configure_file(packaging/copyright.in ${PT2ONNX_PACKAGING_DIR}/copyright @ONLY)
add_custom_command(OUTPUT ${PT2ONNX_PACKAGING_DIR}/changelog.gz
                   COMMAND gzip -9nf -k ${PT2ONNX_PACKAGING_DIR}/changelog
                   DEPENDS ${PT2ONNX_PACKAGING_DIR}/changelog)
add_custom_target(pt2onnx_changelog ALL DEPENDS ${PT2ONNX_PACKAGING_DIR}/changelog.gz)
foreach(component runtime dev)
  if(component STREQUAL "runtime")
    set(package pt2onnx)
  else()
    set(package pt2onnx-dev)
  endif()
  install(FILES ${PT2ONNX_PACKAGING_DIR}/copyright ${PT2ONNX_PACKAGING_DIR}/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${component})
endforeach()

set(CPACK_PACKAGE_NAME pt2onnx)
set(CPACK_PACKAGE_VENDOR "the pt2onnx authors")
set(CPACK_PACKAGE_CONTACT "${PT2ONNX_MAINTAINER}")
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPackDeb would put it above each description below, whose
# first lines are the packages' own synopses (lintian: description-synopsis-is-duplicated).
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
if(PT2ONNX_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${PT2ONNX_HOMEPAGE}")
endif()
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME pt2onnx)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "PyTorch .pt2 archive to ONNX converter, without Python
pt2onnx turns the archive that torch.export.save writes into an ONNX model,
with no Python and no LibTorch: per-op translation rules, local functions
for chosen module types, external data for large weights and optional CUDA
kernel bundles (NVRTC is loaded at run time).")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME pt2onnx-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "pt2onnx (= ${PROJECT_VERSION}), libonnx-dev, libprotobuf-dev, nlohmann-json3-dev, libsimdjson-dev, zlib1g-dev, libdeflate-dev")
set(CPACK_DEBIAN_DEV_DESCRIPTION "PyTorch .pt2 to ONNX converter - C++ library and CMake package
The static library behind pt2onnx with its header pt2onnx.h, and the CMake
package: find_package(pt2onnx CONFIG) gives the targets pt2onnx::pt2onnx and
pt2onnx::pt2onnx_lib and the function pt2onnx_convert(), which converts
archives at build time with a depfile so that Ninja and Make reconvert only
when an input changes.")
include(CPack)
