#!/usr/bin/env bash
# Regenerates samples/ (archives, .io.npz, MANIFEST.json, README.md) by running
# scripts/make_samples.py under each pinned torch venv (scripts/torch_venv.sh): torch 2.15 makes
# the full set; 2.8 and 2.7 add mlp.default.torch2_8.pt2 / mlp.default.torch2_7.pt2 (older layouts).
# Idempotent: files whose bytes would not change are left alone.
# Usage: scripts/make_samples.sh [TORCH_VERSION ...]   (default: 2.15 2.8 2.7)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
versions=("$@")
((${#versions[@]})) || versions=(2.15 2.8 2.7)
for v in "${versions[@]}"; do
  venv=$("$here/scripts/torch_venv.sh" "$v")
  echo "== torch $v ($venv)"
  OMP_NUM_THREADS=1 "$venv/bin/python" "$here/scripts/make_samples.py" --out "$here/samples"
done
