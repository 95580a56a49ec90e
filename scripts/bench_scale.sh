#!/usr/bin/env bash
# Runs scripts/bench_scale.py (deep Linear+GELU programs: convert and inspect wall, peak RSS,
# nodes/s, growth exponent) under the torch 2.15 venv, niced. Arguments go to the script, e.g.
# --pt2onnx build/pt2onnx --baseline /tmp/old/pt2onnx --runs 5.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
venv=$("$here/scripts/torch_venv.sh" 2.15)
OMP_NUM_THREADS=1 exec nice -n 10 "$venv/bin/python" "$here/scripts/bench_scale.py" "$@"
