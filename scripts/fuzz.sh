#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz, clang-16 with ASan+UBSan) into build-fuzz/ and runs
# each: first every regression input of tests/fuzz/regressions/<harness>/ once, then fuzzing from
# a seed corpus extracted from samples/ for SECONDS seconds each (default 15; CI uses 10).
#   scripts/fuzz.sh [SECONDS] [HARNESS...]
# PT2ONNX_FUZZ_RUNS=N runs N executions per harness instead (the long runs of docs/fuzzing.md),
# under nice, in processes of at most PT2ONNX_FUZZ_CHUNK (500k) executions each (ASan's allocator
# caches grow with every run and would pass -rss_limit_mb in about a million), keeping the
# corpus in build-fuzz/corpus/ across runs and each log in
# build-fuzz/logs/. Findings are written to build-fuzz/findings/<harness>/; each one is fixed
# and its input kept in tests/fuzz/regressions/<harness>/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-15}
shift || true
build=${PT2ONNX_FUZZ_BUILD:-$here/build-fuzz}
runs=${PT2ONNX_FUZZ_RUNS:-}
chunk=${PT2ONNX_FUZZ_CHUNK:-500000}
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(sym_expr program_json pickle archive config onnx_text)
# The largest input each harness is given: what its seeds need, and small enough to stay fast
# (make_corpus.py drops seeds over it). Deep-nesting findings need some kB (limits: 512 levels).
declare -A max_len=([sym_expr]=4096 [program_json]=16384 [pickle]=4096 [archive]=16384 [config]=8192
                    [onnx_text]=4096)
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
if [ -z "$runs" ] || [ ! -d "$build/corpus" ]; then
  rm -rf "$build/corpus"
  python3 "$here/tests/fuzz/make_corpus.py" --samples "$here/samples" --out "$build/corpus" >/dev/null
fi
# detect_stack_use_after_return=0: with it, every exception unwinds through ASan's fake stacks,
# and most fuzz inputs end in one (a refusal): it costs a third of the time and finds heap bugs
# no better. Leaks are checked. malloc_context_size=10 (of 30): ASan's depot of distinct allocation
# stacks otherwise grows through the recursive parsers and takes a third of a long run's time.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:detect_stack_use_after_return=0:malloc_context_size=10}
# fuzz_onnx_text allocates mostly inside libonnx's parser, which is not instrumented: the fast
# unwinder's stacks through it are nearly all distinct, so even 10 frames fill the depot (Put()
# took 41 % of a long run, the rate fell from 1,700/s to 1,000/s within 230k executions). It
# keeps one frame, in processes of at most 200k executions; rerun a finding with the default
# context to see the allocation's stack.
declare -A malloc_context=([onnx_text]=1)
declare -A chunk_of=([onnx_text]=200000)
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The archive harness writes its input to a file per run: keep that off the disk.
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
mkdir -p "$build/logs"
for h in "${harnesses[@]}"; do
  bin="$build/tests/fuzz/fuzz_$h"
  regressions="$here/tests/fuzz/regressions/$h"
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    echo "== fuzz_$h: $(ls "$regressions" | wc -l) regression inputs"
    "$bin" -rss_limit_mb=2048 -timeout=20 "$regressions"/* >"$build/logs/regressions_$h.log" 2>&1 ||
      { tail -40 "$build/logs/regressions_$h.log"; echo "fuzz.sh: fuzz_$h fails on a regression input" >&2; exit 1; }
    grep -E "^Executed" "$build/logs/regressions_$h.log" | tail -1
  fi
  mkdir -p "$build/findings/$h" "$build/corpus/$h"
  left=${runs:-0}
  while :; do
    if [ -n "$runs" ]; then
      size=${chunk_of[$h]:-$chunk}; [ "$size" -le "$chunk" ] || size=$chunk
      n=$((left < size ? left : size)); left=$((left - n))
      budget=(-runs="$n"); log="$build/logs/fuzz_$h.$(date -u +%Y%m%dT%H%M%S).$left.log"; niceness=(nice -n 10)
      echo "== fuzz_$h: $n executions, $left after them (log $log)"
    else
      budget=(-max_total_time="$seconds"); log="$build/logs/fuzz_$h.log"; niceness=()
      echo "== fuzz_$h: ${seconds}s"
    fi
    # -rss_limit_mb: a small input that makes us allocate past it is a finding too.
    options=$ASAN_OPTIONS
    [ -z "${malloc_context[$h]:-}" ] || options=${options/malloc_context_size=10/malloc_context_size=${malloc_context[$h]}}
    ASAN_OPTIONS=$options "${niceness[@]}" "$bin" "${budget[@]}" -max_len="${max_len[$h]}" -rss_limit_mb=2048 \
      -timeout=20 -print_final_stats=1 -artifact_prefix="$build/findings/$h/" "$build/corpus/$h" 2>"$log" ||
      { tail -40 "$log"; echo "fuzz.sh: fuzz_$h found a defect (input in $build/findings/$h/)" >&2; exit 1; }
    grep -E "^#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units" "$log" | tail -2
    [ "$left" -gt 0 ] || break
  done
done
