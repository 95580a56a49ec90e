#!/usr/bin/env bash
# Checks file and function sizes (scripts/check_sizes.py), then installs, builds and runs every
# test: unit and end-to-end sample tests on a Release build, then
# the unit tests and the damaged-archive test again under AddressSanitizer and
# UndefinedBehaviorSanitizer, then the six libFuzzer harnesses on their regressions and for 10 s each.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
python3 "$here/scripts/check_sizes.py" "$here"
"$here/scripts/install_deps.sh"
"$here/scripts/build.sh" "$here/build"
(cd "$here/build" && ctest -j "$(nproc)" --output-on-failure)
PT2ONNX_SANITIZE=1 "$here/scripts/build.sh" "$here/build-sanitize"
(cd "$here/build-sanitize" && ctest --output-on-failure -L "unit|fuzz")
"$here/scripts/fuzz.sh" "${PT2ONNX_FUZZ_SECONDS:-10}"
