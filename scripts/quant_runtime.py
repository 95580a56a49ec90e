#!/usr/bin/env python3
"""Run time of quantized samples against their float programs in onnxruntime (issue 32's "must
show"; tooling, not CI; needs only the test venv). For each sample of samples/quant/ that has a
<name>.float.pt2: both converted by pt2onnx at the sample's opset, each loaded with every
onnxruntime optimization, its optimized model saved (SessionOptions.optimized_model_filepath) to
list the kernels it runs, then the median wall of --runs calls on the sample's inputs, one thread.

Usage: ~/.cache/pt2onnx/venv-test/bin/python scripts/quant_runtime.py --pt2onnx build/pt2onnx
"""
from __future__ import annotations

import argparse
import collections
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

ort.set_default_logger_severity(3)  # the optimized model's hardware-specific warning, once per sample


def session(path: Path, optimized: Path) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = 1
    so.optimized_model_filepath = str(optimized)
    return ort.InferenceSession(str(path), sess_options=so, providers=["CPUExecutionProvider"])


def timed(sess: ort.InferenceSession, feeds: dict, runs: int) -> float:
    sess.run(None, feeds)  # warm-up
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sess.run(None, feeds)
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls)


def kernels(optimized: Path) -> str:
    counts = collections.Counter(n.op_type for n in onnx.load(str(optimized)).graph.node)
    return ", ".join(f"{op} x{c}" for op, c in sorted(counts.items()) if c)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pt2onnx", default="build/pt2onnx")
    ap.add_argument("--samples", type=Path, default=Path(__file__).resolve().parent.parent / "samples" / "quant")
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    manifest = json.loads((args.samples / "quant_samples.json").read_text())
    print("| sample | opset | quantized: optimized model's ops | quantized ms | float ms | quantized / float |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for name, entry in manifest.items():
            float_pt2 = args.samples / f"{name}.float.pt2"
            if not float_pt2.exists():
                print(f"| {name} | - | skipped: no {float_pt2.name} | | | |")
                continue
            opset = entry["opset"]
            walls = {}
            ops = ""
            io = np.load(args.samples / f"{name}.io.npz")
            for kind, pt2 in (("q", args.samples / f"{name}.pt2"), ("f", float_pt2)):
                out = tmp / f"{name}.{kind}.onnx"
                r = subprocess.run([args.pt2onnx, str(pt2), "-o", str(out), "--opset", str(opset), "-q"],
                                   capture_output=True, text=True)
                if r.returncode:
                    print(f"| {name} | {opset} | {kind}: pt2onnx exit {r.returncode}: {r.stderr.strip()[:120]} | | | |")
                    break
                sess = session(out, tmp / f"{name}.{kind}.opt.onnx")
                feeds = {i.name: io[f"input_{k}"] for k, i in enumerate(sess.get_inputs())}
                walls[kind] = timed(sess, feeds, args.runs)
                if kind == "q":
                    ops = kernels(tmp / f"{name}.{kind}.opt.onnx")
            if len(walls) == 2:
                print(f"| {name} | {opset} | {ops} | {walls['q'] * 1e3:.3f} | {walls['f'] * 1e3:.3f} | "
                      f"{walls['q'] / walls['f']:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
