#!/usr/bin/env python3
"""Side by side: node counts, dead nodes, unused initializers and onnxruntime session load time
(median of --repeat) of ONNX files, e.g. pt2onnx's and torch.onnx.export's of one model.

Usage: python scripts/compare_onnx.py [--repeat 5] A.onnx B.onnx ...   (test venv: onnx, onnxruntime)

Dead nodes and unused initializers are counted as tests/models/run_clean_tests.py defines them."""
from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "models"))
from run_clean_tests import clean_problems  # noqa: E402


def load_seconds(path: Path, repeat: int) -> float:
    import onnxruntime as ort

    times = []
    for _ in range(repeat):
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.log_severity_level = 3
        t = time.perf_counter()
        ort.InferenceSession(str(path), sess_options=so, providers=["CPUExecutionProvider"])
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ops", action="store_true", help="also print the op histogram")
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args(argv)
    import onnx

    print("| file | nodes | function nodes | dead nodes | unused initializers | ORT load s |")
    print("|---|---|---|---|---|---|")
    for path in args.files:
        model = onnx.load(str(path))
        problems = clean_problems(model)
        dead = sum("dead node" in p for p in problems)
        unused = sum("initializer" in p for p in problems)
        fn_nodes = sum(len(f.node) for f in model.functions)
        print(f"| {path.name} | {len(model.graph.node)} | {fn_nodes} | {dead} | {unused} | "
              f"{load_seconds(path, args.repeat):.3f} |", flush=True)
        if args.ops:
            counts = collections.Counter(n.op_type for n in model.graph.node)
            print("  ", ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
