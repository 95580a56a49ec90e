#!/usr/bin/env bash
# Configures and builds pt2onnx into build/ (or $1), Release unless PT2ONNX_SANITIZE=1.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
args=(-DCMAKE_BUILD_TYPE=Release)
if [ "${PT2ONNX_SANITIZE:-0}" = 1 ]; then args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPT2ONNX_SANITIZE=ON -DPT2ONNX_MODEL_TESTS=OFF); fi
cmake -S "$here" -B "$build" "${args[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
