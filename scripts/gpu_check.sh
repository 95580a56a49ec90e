#!/usr/bin/env bash
# GPU check of --compile kernel bundles, in two steps:
#
#   scripts/gpu_check.sh --prepare DIR   (any machine with NVRTC; no GPU needed)
#       builds pt2onnx and bundle_launcher (scripts/build.sh build), then
#       `tests/models/run_kernel_tests.py --prepare DIR`: every bundle sample with its torch
#       reference cases, the benchmark's bundles (DIR/bench) and the launcher.
#   scripts/gpu_check.sh DIR [LOG]       (the GPU machine; LOG default DIR/gpu_check.log)
#       1. bundle_launcher over every bundle and reference case (what ctest's kernels_gpu runs);
#       2. compute-sanitizer memcheck on two bundles, when it is installed;
#       3. bundle_launcher --bench over DIR/bench: per kernel times, achieved TFLOP/s or GB/s,
#          fraction of the device's peak, against the issue's targets (fp16 GEMM 4096^3 >= 50%
#          of dense tensor peak, fused attention >= 35%, RMSNorm/LayerNorm >= 70% of DRAM).
#       If the prebuilt launcher cannot run there (another C library), it is rebuilt from this
#       checkout's sources with the machine's g++ (DIR/include holds nlohmann/json).
# Exit: 0 every case passed (a missed performance target is reported, not a failure), 1 a
# failure, 77 no GPU or driver here (said on the first line), 2 usage.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = "--prepare" ]; then
  dir=${2:?usage: gpu_check.sh --prepare DIR}
  bash "$root/scripts/build.sh" "$root/build" || exit 1
  py=${PT2ONNX_TEST_PYTHON:-${PT2ONNX_CACHE:-$HOME/.cache/pt2onnx}/venv-test/bin/python}
  "$py" "$root/tests/models/run_kernel_tests.py" --pt2onnx "$root/build/pt2onnx" --launcher "$root/build/tools/bundle_launcher" \
    --samples "$root/samples" --prepare "$dir" || exit 1
  mkdir -p "$dir/include" && cp -r /usr/include/nlohmann "$dir/include/" 2>/dev/null
  echo "prepared $dir: run scripts/gpu_check.sh $dir on the GPU machine"
  exit 0
fi
dir=${1:?usage: gpu_check.sh --prepare DIR | gpu_check.sh DIR [LOG]}
log=${2:-$dir/gpu_check.log}
[ -d "$dir/bundles" ] || { echo "gpu_check: $dir has no bundles/; run scripts/gpu_check.sh --prepare $dir first"; exit 2; }
status=0
{
  echo "gpu_check $(date -u +%FT%TZ)"
  if ! nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1; then
    echo "NO GPU: nvidia-smi failed here; this check needs an NVIDIA GPU and driver (exit 77)"
    exit 77
  fi
  launcher="$dir/bundle_launcher"
  first=$(ls -d "$dir"/bundles/*.kernels | head -1)
  if ! "$launcher" --verify "$first" > /dev/null 2>&1; then
    echo "prebuilt launcher does not run here: $("$launcher" --verify "$first" 2>&1 | head -2)"
    echo "rebuilding it with $(g++ --version | head -1)"
    g++ -std=c++20 -O2 -I "$root/src" -I "$root/tools/bundle_launcher" -I "$dir/include" \
      "$root"/tools/bundle_launcher/main.cpp "$root"/tools/bundle_launcher/bench.cpp "$root"/tools/bundle_launcher/cuda_driver.cpp \
      "$root"/src/kernels/expr.cpp "$root"/src/kernels/sha256.cpp "$root"/src/kernels/cubin.cpp "$root"/src/kernels/roofline.cpp \
      "$root"/src/ir/sym_expr.cpp -ldl -o /tmp/bundle_launcher || exit 1
    launcher=/tmp/bundle_launcher
  fi
  echo "== 1. bundles against torch's outputs"
  for bundle in "$dir"/bundles/*.kernels; do
    name=$(basename "$bundle")
    echo "== $name"
    timeout 120 "$launcher" "$bundle" "$dir/cases/$name"/case*
    rc=$?
    echo "   exit $rc"
    if [ $rc -eq 77 ]; then echo "NO GPU: the launcher found no usable CUDA device (exit 77)"; exit 77; fi
    if [ $rc -ne 0 ]; then status=1; fi
  done
  echo "== 2. compute-sanitizer"
  if command -v compute-sanitizer > /dev/null; then
    for name in decoder.default.DecoderAttention.kernels decoder.core.DecoderLayer.kernels convnet.default.GroupedConv2d.kernels; do
      echo "== compute-sanitizer memcheck $name case0"
      timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$launcher" "$dir/bundles/$name" "$dir/cases/$name/case0" 2>&1 | tail -4
      rc=${PIPESTATUS[0]}
      echo "   exit $rc"
      if [ "$rc" -ne 0 ]; then status=1; fi
    done
  else
    echo "compute-sanitizer: not installed"
  fi
  echo "== 3. benchmark (bundle_launcher --bench)"
  timeout 400 "$launcher" --bench "$dir"/bench/*.kernels
  rc=$?
  echo "   exit $rc"
  if [ $rc -ne 0 ]; then status=1; fi
  echo "overall: $([ $status -eq 0 ] && echo PASS || echo FAIL)"
  exit $status
} 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
