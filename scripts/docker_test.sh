#!/usr/bin/env bash
# Builds the Docker image (Dockerfile) and converts a sample with it on a mounted folder, where a
# container engine works (docker, else podman). Elsewhere it says why it skips and exits 77;
# tests/deploy/run_package_tests.py checks the runtime image's library closure without one.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
engine=""
for candidate in docker podman; do
  if command -v "$candidate" >/dev/null 2>&1; then
    if "$candidate" info >/dev/null 2>&1; then engine=$candidate; break; fi
    echo "docker_test: $candidate is installed but cannot reach its engine: $("$candidate" info 2>&1 | tail -1)"
  fi
done
if [ -z "$engine" ]; then
  echo "docker_test: SKIP: no usable container engine (docker or podman with a running daemon)"
  exit 77
fi
image=pt2onnx:test
"$engine" build -t "$image" "$here"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/samples/mlp.default.pt2" "$work/model.pt2"
"$engine" run --rm -v "$work:/work" "$image" model.pt2 -o model.onnx --report report.json
test -s "$work/model.onnx"
"$engine" run --rm "$image" --version
if "$engine" run --rm --entrypoint sh "$image" -c 'command -v python3 || ls /usr/lib/python3*' >/dev/null 2>&1; then
  echo "docker_test: FAIL: the runtime image holds Python"; exit 1
fi
echo "docker_test: PASS: converted $(stat -c %s "$work/model.onnx") bytes in the container"
