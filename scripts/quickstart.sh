#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is needed, build, convert a sample.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/install_deps.sh"
# Only the converter: the tests' targets are scripts/test.sh's business.
cmake -S "$here" -B "$here/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$here/build" --target pt2onnx -j "$(nproc)"
mkdir -p "$here/build/out"
"$here/build/pt2onnx" "$here/samples/decoder.default.pt2" -o "$here/build/out/decoder.onnx" --opset 18
