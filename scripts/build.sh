#!/usr/bin/env bash
# Configures and builds pt2onnx into build/ (or $1), Release unless PT2ONNX_SANITIZE=1.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
args=(-DCMAKE_BUILD_TYPE=Release)
if [ "${PT2ONNX_SANITIZE:-0}" = 1 ]; then args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPT2ONNX_SANITIZE=ON -DPT2ONNX_MODEL_TESTS=OFF); fi
# ccache, where installed, lets clones and worktrees of the tree share compiled objects (paths
# are made relative to the tree, so the same sources hit the same cache entries). Optional.
if command -v ccache >/dev/null 2>&1; then
  args+=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$here;CCACHE_NOHASHDIR=1;ccache")
fi
cmake -S "$here" -B "$build" "${args[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
