#!/usr/bin/env bash
# Checks that two pt2onnx binaries give the same results on every sample archive: the ONNX of a
# plain convert, the ONNX of a --hiera convert folding every module type the archive has (as
# `inspect --json` lists them), the exit codes and the `inspect` text. For changes that must not change output
# (speed and memory work): prints each difference and exits 1 if there is any.
#   scripts/compare_binaries.sh OLD_BINARY NEW_BINARY [ARCHIVE...]
# Without archives, every .pt2 under samples/ is compared (about a minute per binary).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY [ARCHIVE...]" >&2; exit 2; }
old=$(realpath "$1"); new=$(realpath "$2"); shift 2
archives=("$@")
[ ${#archives[@]} -gt 0 ] || mapfile -t archives < <(find "$here/samples" -name '*.pt2' | sort)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# --hiera arguments for every module type (last dotted part) of every model of an archive.
hiera_args() {
  "$new" inspect "$1" --json 2>/dev/null | python3 -c '
import json, sys
try:
    doc = json.load(sys.stdin)
except ValueError:
    sys.exit(0)
models = doc["models"] if isinstance(doc["models"], list) else [doc["models"]]
types = sorted({t.rsplit(".", 1)[-1] for m in models for t in m.get("module_types", {})})
print("\n".join(a for t in types for a in ("--hiera", t)))'
}
differ=0
for a in "${archives[@]}"; do
  mapfile -t hiera < <(hiera_args "$a")
  for side in old new; do
    bin=${!side}
    (cd "$work" && "$bin" "$a" -q -o "$work/$side.onnx" >/dev/null 2>"$work/$side.err"; echo $? >"$work/$side.rc")
    (cd "$work" && "$bin" inspect "$a" >"$work/$side.inspect" 2>&1; echo $? >>"$work/$side.rc")
    : >"$work/$side.hiera"
    if [ ${#hiera[@]} -gt 0 ]; then
      (cd "$work" && "$bin" "$a" -q "${hiera[@]}" -o "$work/$side.hiera" >/dev/null 2>&1; echo $? >>"$work/$side.rc")
    fi
    [ -f "$work/$side.onnx" ] || : >"$work/$side.onnx"
  done
  for part in rc onnx hiera inspect; do
    cmp -s "$work/old.$part" "$work/new.$part" || { echo "differs: ${a#"$here"/} ($part)"; differ=1; }
  done
  rm -f "$work"/old.* "$work"/new.*
done
echo "compared ${#archives[@]} archives: $([ $differ = 0 ] && echo identical || echo DIFFERENT)"
exit $differ
