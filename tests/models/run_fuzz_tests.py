#!/usr/bin/env python3
"""Mutated archives get a clean refusal (run by ctest as `fuzz_archives`; also by hand with more).

Each case takes a sample .pt2 and damages it, seeded so every run is the same:
- "bytes": a few random bytes of the file overwritten (zip structure, JSON text, weights);
- "json": the model JSON (and weight configs) parsed, one to three random keys or list items
  deleted or replaced by a value of another type, and the zip rewritten with valid CRCs, so the
  damage reaches the importer instead of the zip reader.
pt2onnx must then either convert (some damage is harmless, e.g. to a weight's bytes or to
metadata) or fail with a documented exit code (2, 3, 4, 5, 7) and exactly one stderr line, valid
UTF-8; never crash, never exit 70 (internal error), never hang. Output is never left behind on
failure.

Usage: run_fuzz_tests.py --pt2onnx BUILD/pt2onnx --samples samples/ [--count 60] [--seed 1]
Prints one line per failing mutation (the damaged file is kept in --keep DIR if given) and a
summary; exits 1 on any failure.
"""
from __future__ import annotations

import argparse
import io
import json
import random
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

SAMPLES = ["mlp.default.pt2", "decoder.default.pt2", "cnn.core.pt2", "mlp.default.torch2_7.pt2", "mlp.default.torch2_8.pt2"]
CLEAN_EXITS = {2, 3, 4, 5, 7}
ODD_VALUES = [None, 0, -1, 1e300, "x", [], {}, True, 2**62]


def damage_bytes(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)


def damage_json(data: bytes, rng: random.Random) -> bytes:
    def walk(x):
        keys = sorted(x) if isinstance(x, dict) else list(range(len(x))) if isinstance(x, list) else []
        if not keys:
            return
        k = rng.choice(keys)
        r = rng.random()
        if r < 0.2:
            del x[k]
        elif r < 0.4:
            x[k] = rng.choice(ODD_VALUES)
        else:
            walk(x[k])

    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            blob = src.read(info.filename)
            if info.filename.endswith(".json"):
                doc = json.loads(blob)
                for _ in range(rng.randint(1, 3)):
                    walk(doc)
                blob = json.dumps(doc).encode()
            dst.writestr(info, blob)
    return out.getvalue()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pt2onnx", required=True)
    ap.add_argument("--samples", required=True, type=Path)
    ap.add_argument("--count", type=int, default=60, help="mutations per sample and mode")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", type=Path, help="copy failing archives here")
    a = ap.parse_args()
    failures = runs = converted = 0
    with tempfile.TemporaryDirectory(prefix="pt2onnx-fuzz-") as tmp:
        work = Path(tmp)
        for sample in SAMPLES:
            data = (a.samples / sample).read_bytes()
            for mode, damage in (("bytes", damage_bytes), ("json", damage_json)):
                rng = random.Random(f"{a.seed}:{sample}:{mode}")
                for i in range(a.count):
                    archive = work / "damaged.pt2"
                    out = work / "out.onnx"
                    archive.write_bytes(damage(data, rng))
                    p = subprocess.run([a.pt2onnx, archive, "-o", out, "-q"], capture_output=True, timeout=120)
                    runs += 1
                    problem = ""
                    try:
                        lines = p.stderr.decode("utf-8").strip().splitlines()
                    except UnicodeDecodeError:
                        lines, problem = [], "stderr is not UTF-8"
                    if p.returncode == 0:
                        converted += 1
                        out.unlink(missing_ok=True)
                    elif p.returncode not in CLEAN_EXITS:
                        problem = f"exit {p.returncode}"
                    elif len(lines) != 1:
                        problem = f"{len(lines)} stderr lines"
                    elif out.exists():
                        problem = "output left behind"
                    if problem:
                        failures += 1
                        print(f"FAIL {sample} {mode} #{i}: {problem}: {p.stderr[:300]!r}")
                        if a.keep:
                            a.keep.mkdir(parents=True, exist_ok=True)
                            (a.keep / f"{Path(sample).stem}.{mode}.{i}.pt2").write_bytes(archive.read_bytes())
    print(f"{runs} damaged archives: {runs - converted - failures} refused cleanly, {converted} converted, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
