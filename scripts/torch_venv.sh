#!/usr/bin/env bash
# Prints the path of a venv holding the pinned torch of requirements/torch-<VERSION>.txt,
# creating it first when needed. Venvs live in a cache folder outside the tree (one per torch
# version, about 3 GB each) and are reused while the requirements file is unchanged.
# Only the sample generators and the benchmark use torch; the converter and CI never do.
set -euo pipefail
version=${1:?usage: torch_venv.sh TORCH_VERSION (e.g. 2.15)}
here=$(cd "$(dirname "$0")/.." && pwd)
req="$here/requirements/torch-$version.txt"
[ -f "$req" ] || { echo "torch_venv: no $req (have: $(ls "$here"/requirements | grep ^torch- | tr '\n' ' '))" >&2; exit 2; }
cache=${PT2ONNX_CACHE:-$HOME/.cache/pt2onnx}
venv="$cache/venv-torch-$version"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "torch_venv: preparing $venv (large download)" >&2
  mkdir -p "$cache"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2
  echo "$want" > "$stamp"
fi
echo "$venv"
