#!/usr/bin/env bash
# Runs scripts/bench_weights.py (1 GB archive: cp vs pt2onnx --external-data with CRC-32 checks,
# median of >= 5 pairs, peak RSS, ORT check)
# under the torch 2.15 venv. Arguments go to the script, e.g. --pt2onnx build/pt2onnx --runs 7.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
venv=$("$here/scripts/torch_venv.sh" 2.15)
OMP_NUM_THREADS=1 exec "$venv/bin/python" "$here/scripts/bench_weights.py" "$@"
