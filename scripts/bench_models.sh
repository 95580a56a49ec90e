#!/usr/bin/env bash
# Runs scripts/bench_models.py (LLM-shaped and CNN archives made with transformers and
# torchvision: pt2onnx vs cp vs the in-kernel copy floor, embedded and --external-data, median
# of >= 5 rounds, peak RSS, ORT check; exits 1 past 1.5x cp) under the torch 2.15 zoo venv.
# Arguments go to the script, e.g. --before OLD_BINARY --runs 7 --archives resnet50.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
venv=$("$here/scripts/torch_venv.sh" 2.15 --zoo)
OMP_NUM_THREADS=1 exec "$venv/bin/python" "$here/scripts/bench_models.py" "$@"
