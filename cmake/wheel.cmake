# The Python wheel (pyproject.toml; scikit-build-core configures with SKBUILD set, builds only the
# pt2onnx target and installs only the component `wheel`): the binary goes into the package folder
# as pt2onnx/bin/pt2onnx, where python/pt2onnx/_binary.py looks for it. The shared libraries it
# links (Debian's onnx, protobuf, simdjson, libdeflate, mimalloc, ...) are not installed
# here: scripts/build_wheel.sh has auditwheel copy them into the wheel and point the binary's
# RPATH at them, because Debian ships no static archives of simdjson, onnx or mimalloc.
install(TARGETS pt2onnx RUNTIME DESTINATION pt2onnx/bin COMPONENT wheel)
