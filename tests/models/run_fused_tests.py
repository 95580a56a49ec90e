#!/usr/bin/env python3
"""ONNX fused ops at opsets 23 and 24 (run by ctest as the `fused` test).

For every op sample whose manifest entry has "fused_ops" (scripts/make_op_samples.py's FUSED_OPS:
{ONNX op: nodes} a conversion at opset 23+ must emit) and for the zoo samples listed in ZOO below:
convert at opsets 23 and 24, run onnx.checker (full_check), require the node histogram to hold
exactly those counts of each listed op, and compare onnxruntime's outputs with torch's (rtol 1e-4,
atol 1e-5; dynamic samples at both input sets). Then convert again at 23 with --no-fuse and
require none of the fused ops (Attention, RMSNormalization, RotaryEmbedding) unless the program
names them itself (torch.onnx.ops), with the same numbers. `pt2onnx inspect --opset 23 --json`
must report the same fused ops. Prints one line per check, the histograms and max abs errors.

Needs only numpy, onnx and onnxruntime (never torch).
"""
from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_model_tests as rmt  # noqa: E402  (converter, comparison, onnxruntime runner)

OPSETS = (23, 24)
FUSED = ("Attention", "RMSNormalization", "RotaryEmbedding")
# Zoo samples (samples/zoo/MANIFEST.json) and the fused ops their conversion must emit.
ZOO = {
    "zoo_llama.default": {"Attention": 2, "RMSNormalization": 5, "RotaryEmbedding": 4},
    "zoo_llama.core": {"RMSNormalization": 5, "RotaryEmbedding": 4},
    "zoo_t5_encoder.default": {"Attention": 2, "RMSNormalization": 5},
    "zoo_t5_encoder.core": {"RMSNormalization": 5},
    "zoo_falcon.default": {"RotaryEmbedding": 4},
    "zoo_falcon.core": {"RotaryEmbedding": 4},
    "zoo_mixtral.default": {"Attention": 2, "RMSNormalization": 5, "RotaryEmbedding": 4},
    "zoo_mixtral.core": {"RMSNormalization": 5, "RotaryEmbedding": 4},
}


def histogram(onnx_path: Path):
    import onnx

    m = onnx.load(str(onnx_path), load_external_data=False)
    return collections.Counter(n.op_type for n in m.graph.node)


def load_cases(samples: Path):
    """[(tag, folder, entry, expected {op: count})]"""
    cases = []
    ops = json.loads((samples / "ops" / "MANIFEST.json").read_text())["samples"]
    for stem, entry in sorted(ops.items()):
        if "fused_ops" in entry:
            cases.append((f"ops/{stem}", samples / "ops", entry, entry["fused_ops"]))
    zoo = json.loads((samples / "zoo" / "MANIFEST.json").read_text())["samples"]
    for stem, expected in ZOO.items():
        cases.append((f"zoo/{stem}", samples / "zoo", zoo[stem], expected))
    return cases


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pt2onnx", required=True)
    ap.add_argument("--samples", required=True, help="the samples/ folder (reads ops/ and zoo/ manifests)")
    ap.add_argument("--only", default="", help="comma-separated tags (ops/attention.default, ...)")
    args = ap.parse_args(argv)

    res = rmt.Results()
    conv = rmt.Converter(args.pt2onnx)
    cases = load_cases(Path(args.samples))
    if args.only:
        cases = [c for c in cases if c[0] in args.only.split(",")]
    errors = {}
    with tempfile.TemporaryDirectory(prefix="pt2onnx-fused-") as tmp:
        work = Path(tmp)
        for tag, folder, entry, expected in cases:
            pt2, npz = folder / entry["file"], folder / entry["io_file"]
            ins, outs = rmt.load_io(npz)
            ins2, outs2 = rmt.load_io(npz, "b2_") if entry.get("has_second_batch") else ([], [])
            own = set(expected) if entry.get("min_opset") else set()  # ops the program names itself

            def run(opset, extra, want):
                out = work / tag.replace("/", "_") / f"{opset}{''.join(extra)}.onnx"
                out.parent.mkdir(parents=True, exist_ok=True)
                conv.convert(pt2, out, "--opset", str(opset), *extra)
                rmt.onnx_checker(out)
                hist = histogram(out)
                for op in set(want) | set(FUSED):
                    got, need = hist.get(op, 0), want.get(op, 0)
                    if got != need:
                        raise rmt.CheckFailed(f"{got} {op} nodes, expected {need}; histogram {dict(sorted(hist.items()))}")
                err = rmt.compare(rmt.run_ort(out, ins), outs)
                if ins2:
                    err = max(err, rmt.compare(rmt.run_ort(out, ins2), outs2))
                errors[f"{tag} @{opset}{' '.join(extra)}"] = err
                shown = {op: hist[op] for op in sorted(set(want) | set(FUSED)) if hist.get(op)}
                return f"{shown}, {sum(hist.values())} nodes, max abs error {err:.3g}"

            for opset in OPSETS:
                res.check(f"{tag} opset {opset}", lambda opset=opset: run(opset, [], expected))
            unfused = {op: n for op, n in expected.items() if op not in FUSED or op in own}
            res.check(f"{tag} opset 23 --no-fuse", lambda: run(23, ["--no-fuse"], unfused))

            def inspected():
                p = conv.run(["inspect", pt2, "--opset", "23", "--json"])
                if p.returncode != 0:
                    raise rmt.CheckFailed(f"exit {p.returncode}: {p.err.strip()[:500]}")
                got = collections.Counter()
                for f in json.loads(p.out)["models"][0]["fused_ops"]:
                    got[f["op_type"]] += f["count"]
                want = {op: n for op, n in expected.items() if op in FUSED and op not in own}
                if dict(got) != want:
                    raise rmt.CheckFailed(f"inspect reports fused ops {dict(got)}, expected {want}")
                return f"{dict(got)}"

            res.check(f"{tag} inspect --opset 23 fused ops", inspected)
    print("\nmax abs error vs torch:")
    for k, v in errors.items():
        print(f"  {k:55s} {v:.3g}")
    print(res.summary())
    return 0 if res.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
