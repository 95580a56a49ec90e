#!/usr/bin/env bash
# Regenerates samples/ (archives, .io.npz, MANIFEST.json, README.md) by running
# scripts/make_samples.py under each pinned torch venv (scripts/torch_venv.sh): torch 2.15 makes
# the full set; each older release adds its OLD_TORCH_MODELS as <model>.default.torch<M>_<m>.pt2.
# Then, under torch 2.15, scripts/make_op_samples.py makes the op samples in samples/ops/ and writes
# their section of samples/README.md (which make_samples.py rewrites without it: when 2.15 is not
# among the versions asked for, only that README section is rewritten).
# Idempotent: files whose bytes would not change are left alone.
# Usage: scripts/make_samples.sh [TORCH_VERSION ...]   (default: 2.15 2.12 2.10 2.8 2.7 2.4 2.1)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
versions=("$@")
((${#versions[@]})) || versions=(2.15 2.12 2.10 2.8 2.7 2.4 2.1)
for v in "${versions[@]}"; do
  venv=$("$here/scripts/torch_venv.sh" "$v")
  echo "== torch $v ($venv)"
  OMP_NUM_THREADS=1 "$venv/bin/python" "$here/scripts/make_samples.py" --out "$here/samples"
done

ops_args=()
[[ " ${versions[*]} " == *" 2.15 "* ]] || ops_args=(--readme-only)
venv=$("$here/scripts/torch_venv.sh" 2.15)
echo "== op samples, torch 2.15 ($venv)${ops_args[*]:+ (README section only)}"
OMP_NUM_THREADS=1 "$venv/bin/python" "$here/scripts/make_op_samples.py" --out "$here/samples/ops" "${ops_args[@]}"
