#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is needed, build, convert a sample.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/install_deps.sh"
"$here/scripts/build.sh"
mkdir -p "$here/build/out"
"$here/build/pt2onnx" "$here/samples/decoder.default.pt2" -o "$here/build/out/decoder.onnx" --opset 18
