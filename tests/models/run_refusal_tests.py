#!/usr/bin/env python3
"""`inspect` predicts what convert refuses (run by ctest as `refusal_prediction`).

Every archive under samples/ is converted (opset 18; the quant samples also below the opset their
form needs, `refused_below`) and inspected (`inspect --json`, same opset), one model at a time:

- convert succeeds: inspect must predict nothing, no op blocking conversion and no refusal;
- convert exits 4 with one stderr line `pt2onnx: error: FILE: MESSAGE`: inspect must name it.
  MESSAGE is either the list of ops no rule handles (`unsupported ops (N): ...`), and then the
  targets inspect marks blocking must be exactly those it names, or any other refusal, and then it
  must be inspect's first refusal word for word (convert stops at the first);
- any other exit status: inspect must fail with the same one.

Refusals that no sample shows (a rule refusing a node's arguments beside a refused state, two in
one program) are checked by unit_api's inspect tests.

Standard library only. One line per refused archive, then `N passed, M failed`.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_OPSET = 18


def run(exe, *args):
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, timeout=300)


def targets_named(message):
    """The targets of convert's `unsupported ops (N): t1 ×2 (e.g. ...); t2 ×1 (...)` message."""
    body = message.split("): ", 1)[1]
    return set(re.findall(r"(?:^|; )(\S+(?: on complex values)?) \u00d7\d+", body))


def check(exe, pt2: Path, opset, work: Path):
    """One archive at one opset; returns a description of the refusal, "" when converted."""
    inspected = run(exe, "inspect", pt2, "--opset", opset, "--json")
    if inspected.returncode != 0:
        converted = run(exe, pt2, "-o", work / "out.onnx", "--opset", opset, "-q")
        if converted.returncode != inspected.returncode:
            raise AssertionError(f"inspect exit {inspected.returncode}, convert exit {converted.returncode}")
        return f"inspect and convert both exit {converted.returncode}"
    models = json.loads(inspected.stdout)["models"]
    described = []
    for model in models:
        out = work / "out.onnx"
        out.unlink(missing_ok=True)
        extra = ("--model", model["name"]) if len(models) > 1 else ()
        converted = run(exe, pt2, "-o", out, "--opset", opset, "-q", *extra)
        blocking = {o["target"] for o in model["ops"] if o["blocks_conversion"]}
        refusals = [r["message"] for r in model["refusals"]]
        if converted.returncode == 0:
            if blocking or refusals:
                raise AssertionError(f"converted, but inspect predicts ops {sorted(blocking)}, refusals {refusals}")
            continue
        lines = converted.stderr.strip().splitlines()
        prefix = f"pt2onnx: error: {pt2}: "
        if converted.returncode != 4 or len(lines) != 1 or not lines[0].startswith(prefix):
            raise AssertionError(f"convert exit {converted.returncode}: {converted.stderr.strip()!r}")
        message = lines[0][len(prefix):]
        if message.startswith("unsupported ops ("):
            if targets_named(message) != blocking:
                raise AssertionError(f"convert refuses ops {sorted(targets_named(message))}, inspect marks {sorted(blocking)}")
        elif not refusals or refusals[0] != message:
            raise AssertionError(f"convert: {message!r}; inspect's refusals: {refusals}")
        described.append(f"{model['name']}: {message[:150]}"
                         + (f" (inspect: {len(refusals)} refusals, {len(blocking)} blocking ops)"))
    return "; ".join(described)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pt2onnx", type=Path, required=True)
    ap.add_argument("--samples", type=Path, required=True)
    args = ap.parse_args()
    cases = [(pt2, DEFAULT_OPSET) for pt2 in sorted(args.samples.rglob("*.pt2"))]
    quant = args.samples / "quant" / "quant_samples.json"
    for name, spec in json.loads(quant.read_text()).items():
        if spec.get("refused_below"):
            cases.append((args.samples / "quant" / f"{name}.pt2", spec["refused_below"] - 1))
    passed = failed = converted = 0
    with tempfile.TemporaryDirectory(prefix="pt2onnx-refusals-") as td:
        for pt2, opset in cases:
            label = f"{pt2.relative_to(args.samples)} opset {opset}"
            try:
                what = check(args.pt2onnx, pt2, opset, Path(td))
            except AssertionError as e:
                print(f"FAIL {label}: {e}")
                failed += 1
                continue
            passed += 1
            if what:
                print(f"PASS {label}: {what}")
            else:
                converted += 1
    print(f"{passed} passed, {failed} failed ({converted} converted with nothing predicted, "
          f"{passed - converted} refused as inspect predicted)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
