#!/usr/bin/env bash
# Checks that two pt2onnx binaries give the same results on every sample archive: the ONNX of a
# plain convert, the exit code and the `inspect` text. For changes that must not change output
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
differ=0
for a in "${archives[@]}"; do
  for side in old new; do
    bin=${!side}
    (cd "$work" && "$bin" "$a" -q -o "$work/$side.onnx" >/dev/null 2>"$work/$side.err"; echo $? >"$work/$side.rc")
    (cd "$work" && "$bin" inspect "$a" >"$work/$side.inspect" 2>&1; echo $? >>"$work/$side.rc")
    [ -f "$work/$side.onnx" ] || : >"$work/$side.onnx"
  done
  for part in rc onnx inspect; do
    cmp -s "$work/old.$part" "$work/new.$part" || { echo "differs: ${a#"$here"/} ($part)"; differ=1; }
  done
  rm -f "$work"/old.* "$work"/new.*
done
echo "compared ${#archives[@]} archives: $([ $differ = 0 ] && echo identical || echo DIFFERENT)"
exit $differ
