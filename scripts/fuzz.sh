#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz, clang-16 with ASan+UBSan) into build-fuzz/ and runs
# each: first every regression input of tests/fuzz/regressions/<harness>/ once, then fuzzing from
# a seed corpus extracted from samples/ for SECONDS seconds each (default 15; CI uses that).
#   scripts/fuzz.sh [SECONDS] [HARNESS...]
# Findings are written to build-fuzz/findings/<harness>/; copy each into tests/fuzz/regressions/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-15}
shift || true
build=${PT2ONNX_FUZZ_BUILD:-$here/build-fuzz}
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(sym_expr program_json pickle archive config onnx_text)
cc=${PT2ONNX_FUZZ_CXX:-clang++-16}
command -v "$cc" >/dev/null || { echo "fuzz.sh: $cc not found (scripts/install_deps.sh installs clang-16)" >&2; exit 1; }
args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPT2ONNX_FUZZ=ON -DPT2ONNX_MODEL_TESTS=OFF -DCMAKE_CXX_COMPILER="$cc")
if command -v ccache >/dev/null 2>&1; then
  args+=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$here;CCACHE_NOHASHDIR=1;ccache")
fi
cmake -S "$here" -B "$build" "${args[@]}" >/dev/null
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
rm -rf "$build/corpus"
python3 "$here/tests/fuzz/make_corpus.py" --samples "$here/samples" --out "$build/corpus" >/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for h in "${harnesses[@]}"; do
  bin="$build/tests/fuzz/fuzz_$h"
  regressions="$here/tests/fuzz/regressions/$h"
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    echo "== fuzz_$h: $(ls "$regressions" | wc -l) regression inputs"
    "$bin" -rss_limit_mb=2048 -timeout=20 "$regressions"/* 2>&1 | grep -E "^(Executed|==[0-9]+==ERROR|SUMMARY)" | tail -3
  fi
  mkdir -p "$build/findings/$h" "$build/corpus/$h"
  echo "== fuzz_$h: ${seconds}s"
  # -rss_limit_mb: a small input that makes us allocate past it is a finding too.
  "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$build/findings/$h/" "$build/corpus/$h" 2>"$build/fuzz_$h.log" ||
    { tail -40 "$build/fuzz_$h.log"; echo "fuzz.sh: fuzz_$h found a defect (input in $build/findings/$h/)" >&2; exit 1; }
  grep -E "^#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units" "$build/fuzz_$h.log" | tail -2
done
