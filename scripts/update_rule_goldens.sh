#!/usr/bin/env bash
# Rewrites the expected ONNX text of every rule golden (tests/unit/translate/rules/*.txt) from
# what the rules emit now, by running the golden test of unit_translate in update mode. Read the
# diff by eye against the rule before committing: a golden that matches a wrong graph is worse
# than none. Usage: scripts/update_rule_goldens.sh [build dir, default build/]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
cmake --build "$build" --target unit_translate -j "$(nproc)"
PT2ONNX_UPDATE_GOLDENS=1 "$build/tests/unit_translate" --test-case="rule goldens*" --success=false
git -C "$here" diff --stat -- tests/unit/translate/rules
