#!/usr/bin/env bash
# Installs what building and testing pt2onnx needs on Debian 12: the C++ libraries from
# Debian's packages and a Python venv (onnx, onnxruntime, numpy) used only by the tests.
# Idempotent and quiet when everything is already there.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

pkgs=(build-essential cmake pkg-config libonnx-dev libprotobuf-dev protobuf-compiler
      nlohmann-json3-dev libsimdjson-dev zlib1g-dev libcli11-dev
      libzip-dev zipcmp zipmerge ziptool  # the archive tests write DEFLATE zips with libzip (its CMake config wants the tools)
      doctest-dev libdeflate-dev libmimalloc-dev python3-venv
      ninja-build dpkg-dev file lintian  # the install_package and deb_package tests
      ccache  # the wheel test's build reuses build/'s objects instead of compiling the tree again
      clang-16 libclang-rt-16-dev)  # libFuzzer harnesses (scripts/fuzz.sh); clang 16 reads C++20 aggregate ()-init
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install_deps: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd=sudo
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The test venv lives outside the tree so clones share it; its requirements file is its key.
cache=${PT2ONNX_CACHE:-$HOME/.cache/pt2onnx}
venv="$cache/venv-test"
req="$here/requirements/test.txt"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "install_deps: preparing $venv"
  mkdir -p "$cache"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
  echo "$want" > "$stamp"
fi
