#!/usr/bin/env bash
# Prints the path of a venv holding the pinned torch of requirements/torch-<VERSION>.txt,
# creating it first when needed. Venvs live in a cache folder outside the tree (one per torch
# version, about 3 GB each) and are reused while the requirements file is unchanged.
# Only the sample generators and the benchmark use torch; the converter and CI never do.
set -euo pipefail
# With --zoo it also installs requirements/zoo.txt (torchvision, transformers, onnxscript, onnx,
# onnxruntime) into the same venv, for scripts/zoo.py; with --quant, requirements/quant.txt
# (torchao) on top of the venv, for scripts/make_quant_samples.py.
version=${1:?usage: torch_venv.sh TORCH_VERSION [--zoo|--quant] (e.g. 2.15)}
extra=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
req="$here/requirements/torch-$version.txt"
[ -f "$req" ] || { echo "torch_venv: no $req (have: $(ls "$here"/requirements | grep ^torch- | tr '\n' ' '))" >&2; exit 2; }
reqs=(-r "$req")
case "$extra" in
  "") ;;
  --zoo) reqs+=(-r "$here/requirements/zoo.txt") ;;
  --quant) reqs+=(-r "$here/requirements/quant.txt") ;;
  *) echo "torch_venv: unknown option $extra (known: --zoo, --quant)" >&2; exit 2 ;;
esac
cache=${PT2ONNX_CACHE:-$HOME/.cache/pt2onnx}
venv="$cache/venv-torch-$version"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
# The zoo extras get their own stamp so that a plain call never uninstalls them.
zoo_stamp="$venv/.zoo-requirements.sha256"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "torch_venv: preparing $venv (large download)" >&2
  mkdir -p "$cache"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2
  echo "$want" > "$stamp"
fi
if [ "$extra" = --zoo ]; then
  want_zoo=$(cat "$req" "$here/requirements/zoo.txt" | sha256sum | cut -d' ' -f1)
  if [ ! -f "$zoo_stamp" ] || [ "$(cat "$zoo_stamp")" != "$want_zoo" ]; then
    echo "torch_venv: installing the zoo requirements into $venv" >&2
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${reqs[@]}" >&2
    echo "$want_zoo" > "$zoo_stamp"
  fi
fi
if [ "$extra" = --quant ]; then
  want_quant=$(cat "$req" "$here/requirements/quant.txt" | sha256sum | cut -d' ' -f1)
  quant_stamp="$venv/.quant-requirements.sha256"
  if [ ! -f "$quant_stamp" ] || [ "$(cat "$quant_stamp")" != "$want_quant" ]; then
    echo "torch_venv: installing the quantization requirements into $venv" >&2
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${reqs[@]}" >&2
    echo "$want_quant" > "$quant_stamp"
  fi
fi
echo "$venv"
