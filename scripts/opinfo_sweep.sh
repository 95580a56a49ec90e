#!/usr/bin/env bash
# The full OpInfo sweep (issue 30; by hand, never CI): exports every OpInfo of torch's op_db with
# sample inputs of DTYPE (float32 unless given; one DIR per dtype) into DIR (scripts/make_opinfo_samples.py --sweep; kept between runs, so a
# rerun only converts), then converts and compares every program and prints the table by OpInfo
# (tests/models/run_opinfo_tests.py --table; also written to DIR/table.md). Exits 1 when any
# program gives wrong numbers or invalid ONNX with exit 0.
# Usage: scripts/opinfo_sweep.sh [DIR (default /tmp/pt2onnx_opinfo)] [PT2ONNX (default build/pt2onnx)]
#        [DTYPE (float32, float64, float16, int64, int32, uint8 or bool)] [SAMPLES PER OPINFO (default 5)]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/pt2onnx_opinfo}
exe=${2:-$here/build/pt2onnx}
dtype=${3:-float32}
per_op=${4:-5}
torch_venv=$("$here/scripts/torch_venv.sh" 2.15 --zoo)
test_python=${PT2ONNX_TEST_PYTHON:-${PT2ONNX_CACHE:-$HOME/.cache/pt2onnx}/venv-test/bin/python}
nice "$torch_venv/bin/python" "$here/scripts/make_opinfo_samples.py" --sweep "$dir" --dtype "$dtype" --per-op "$per_op" --timeout 60
nice "$test_python" "$here/tests/models/run_opinfo_tests.py" --pt2onnx "$exe" --index "$dir/index.json" --table \
  --timeout 60 --jobs 2 --markdown "$dir/table.md" --results "$dir/results.json"
