#!/usr/bin/env python3
"""onnxruntime run time of fused ONNX ops (Attention, RMSNormalization, RotaryEmbedding) vs --no-fuse.

Converts each sample at --opset (default 23) twice, with and without --no-fuse, checks both give the
same outputs (rtol 1e-4, atol 1e-5) and times onnxruntime (CPU, --threads intra-op threads) on the
sample's own inputs and on a longer random input_ids batch: median over --repeat runs after --warmup,
per model and input. Prints a markdown table (docs/fusion.md has one).

Needs only numpy, onnx and onnxruntime (the test venv): python scripts/bench_fused.py --pt2onnx build/pt2onnx
"""
from __future__ import annotations

import argparse
import collections
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["zoo/zoo_llama.default", "zoo/zoo_mixtral.default"]


def session(path, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def median_ms(sess, feed, warmup, repeat):
    for _ in range(warmup):
        sess.run(None, feed)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        sess.run(None, feed)
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pt2onnx", default=str(ROOT / "build" / "pt2onnx"))
    ap.add_argument("--samples", default=str(ROOT / "samples"))
    ap.add_argument("--models", default=",".join(DEFAULT), help="sample stems under --samples")
    ap.add_argument("--opset", type=int, default=23)
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--long", default="4x60", help="random input_ids BATCHxSEQ also timed ('' for none)")
    args = ap.parse_args()
    import onnx

    rows = []
    with tempfile.TemporaryDirectory(prefix="pt2onnx-bench-fused-") as tmp:
        for stem in [m for m in args.models.split(",") if m]:
            pt2 = Path(args.samples) / f"{stem}.pt2"
            io = np.load(Path(args.samples) / f"{stem}.io.npz")
            ins = [io[k] for k in sorted((k for k in io.files if k.startswith("input_")), key=lambda k: int(k[6:]))]
            paths, hists = {}, {}
            for mode, extra in (("fused", []), ("no-fuse", ["--no-fuse"])):
                out = Path(tmp) / f"{stem.replace('/', '_')}.{mode}.onnx"
                subprocess.run([args.pt2onnx, str(pt2), "-o", str(out), "--opset", str(args.opset), "-q", *extra], check=True)
                paths[mode] = out
                hists[mode] = collections.Counter(n.op_type for n in onnx.load(str(out)).graph.node)
            sess = {m: session(p, args.threads) for m, p in paths.items()}
            names = [i.name for i in sess["fused"].get_inputs()]
            feeds = {"sample " + "x".join(map(str, ins[0].shape)): dict(zip(names, ins))}
            if args.long and len(ins) == 1 and ins[0].dtype == np.int64:
                b, s = map(int, args.long.split("x"))
                ids = np.random.default_rng(0).integers(0, int(ins[0].max()) + 1, (b, s), dtype=np.int64)
                feeds[f"random {b}x{s}"] = {names[0]: ids}
            for label, feed in feeds.items():
                a, b2 = sess["fused"].run(None, feed), sess["no-fuse"].run(None, feed)
                for x, y in zip(a, b2):
                    np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-5)
                t = {m: median_ms(s_, feed, args.warmup, args.repeat) for m, s_ in sess.items()}
                fused_ops = {op: hists["fused"][op] for op in ("Attention", "RMSNormalization", "RotaryEmbedding") if hists["fused"][op]}
                rows.append((stem, label, fused_ops, sum(hists["fused"].values()), sum(hists["no-fuse"].values()),
                             t["fused"], t["no-fuse"]))
                print(f"{stem} {label}: fused {t['fused']:.3f} ms, --no-fuse {t['no-fuse']:.3f} ms", flush=True)
    print()
    print(f"onnxruntime CPU, {args.threads} thread(s), opset {args.opset}, median of {args.repeat} runs after {args.warmup} warm-up runs")
    print()
    print("| model | input | fused ops | nodes fused / --no-fuse | fused ms | --no-fuse ms | speed-up |")
    print("|---|---|---|---|---|---|---|")
    for stem, label, ops, n1, n2, t1, t2 in rows:
        ops_s = ", ".join(f"{k} {v}" for k, v in ops.items())
        print(f"| {stem} | {label} | {ops_s} | {n1} / {n2} | {t1:.3f} | {t2:.3f} | {t2 / t1:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
