#!/usr/bin/env bash
# GPU check of --compile kernel bundles, for a machine with an NVIDIA GPU and driver: runs
# bundle_launcher (it dlopens libcuda.so.1) over every bundle and reference case that
# `tests/models/run_kernel_tests.py --prepare DIR` put in DIR, then compute-sanitizer (memcheck)
# on two bundles when it is installed. If the prebuilt launcher cannot run there (another C
# library), it is rebuilt from this checkout's sources with the machine's g++ (DIR/include
# holds nlohmann/json). Usage: scripts/gpu_check.sh DIR [LOG]   (LOG default: DIR/gpu_check.log)
set -u
dir=${1:?usage: gpu_check.sh DIR [LOG]}
log=${2:-$dir/gpu_check.log}
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
{
  echo "gpu_check $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 || true
  launcher="$dir/bundle_launcher"
  first=$(ls -d "$dir"/bundles/*.kernels | head -1)
  if ! "$launcher" --verify "$first" > /dev/null 2>&1; then
    echo "prebuilt launcher does not run here: $("$launcher" --verify "$first" 2>&1 | head -2)"
    echo "rebuilding it with $(g++ --version | head -1)"
    g++ -std=c++20 -O2 -I "$root/src" -I "$root/tools/bundle_launcher" -I "$dir/include" \
      "$root"/tools/bundle_launcher/main.cpp "$root"/tools/bundle_launcher/cuda_driver.cpp \
      "$root"/src/kernels/expr.cpp "$root"/src/kernels/sha256.cpp "$root"/src/kernels/cubin.cpp \
      "$root"/src/ir/sym_expr.cpp -ldl -o /tmp/bundle_launcher || exit 1
    launcher=/tmp/bundle_launcher
  fi
  for bundle in "$dir"/bundles/*.kernels; do
    name=$(basename "$bundle")
    echo "== $name"
    timeout 120 "$launcher" "$bundle" "$dir/cases/$name"/case*
    rc=$?
    echo "   exit $rc"
    if [ $rc -ne 0 ]; then status=1; fi
  done
  if command -v compute-sanitizer > /dev/null; then
    for name in decoder.default.DecoderAttention.kernels decoder.core.DecoderLayer.kernels; do
      echo "== compute-sanitizer memcheck $name case0"
      timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$launcher" "$dir/bundles/$name" "$dir/cases/$name/case0" 2>&1 | tail -4
      echo "   exit ${PIPESTATUS[0]}"
    done
  else
    echo "compute-sanitizer: not installed"
  fi
  echo "overall: $([ $status -eq 0 ] && echo PASS || echo FAIL)"
  exit $status
} 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
