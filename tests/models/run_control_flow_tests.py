#!/usr/bin/env python3
"""Structure of the control-flow samples (samples/control_flow/, made by
scripts/make_control_flow_samples.py) after conversion at opsets 18 and 23.

run_model_tests.py checks their numbers (onnxruntime vs torch at both input sets and both
opsets); this checks what the ONNX is made of, against each manifest entry's `expect`: the If,
Loop and Scan nodes (counted in the main graph, in every subgraph and in every function body),
the number of local functions and of calls of them (invoke_subgraph: one function per distinct
body), and, under `expect.hiera.<Type>`, the same after `--hiera <Type>`, where onnxruntime must
still give torch's outputs (rtol 1e-4, atol 1e-5). It also checks that pt2onnx refuses an
unsupported op inside a subgraph by name, with exit 4, and that `inspect` lists the ops inside
subgraphs and shows how they nest.

Needs numpy, onnx and onnxruntime (the test venv), never torch.
"""
from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

RTOL, ATOL = 1e-4, 1e-5
OPSETS = (18, 23)
COUNTED = ("If", "Loop", "Scan")


def histogram(model: onnx.ModelProto):
    """Op counts over the main graph, its subgraphs and the function bodies; calls of functions."""
    h = collections.Counter()
    functions = {(f.domain, f.name) for f in model.functions}

    def walk(nodes):
        for n in nodes:
            h[n.op_type] += 1
            if (n.domain, n.op_type) in functions:
                h["calls"] += 1
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g.node)
                for g in a.graphs:
                    walk(g.node)

    walk(model.graph.node)
    for f in model.functions:
        walk(f.node)
    h["functions"] = len(model.functions)
    return h


def run_ort(path, inputs):
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return s.run(None, {i.name: a for i, a in zip(s.get_inputs(), inputs)})


def io_sets(npz):
    z = np.load(npz)
    sets = []
    for prefix in ("", "b2_"):
        ins = [z[k] for k in sorted((k for k in z.files if k.startswith(prefix + "input_")), key=lambda k: int(k.rsplit("_", 1)[1]))]
        outs = [z[k] for k in sorted((k for k in z.files if k.startswith(prefix + "output_")), key=lambda k: int(k.rsplit("_", 1)[1]))]
        if ins:
            sets.append((ins, outs))
    return sets


class Checks:
    def __init__(self):
        self.failed = 0
        self.passed = 0

    def check(self, name, ok, detail):
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}", flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1


def check_structure(res, exe, folder, stem, entry, work, expect, extra, label):
    for opset in OPSETS:
        out = work / f"{stem}.{label}.{opset}.onnx"
        p = subprocess.run([exe, str(folder / entry["file"]), "-o", str(out), "--opset", str(opset), *extra],
                           capture_output=True, text=True, timeout=120)
        name = f"{stem} [{label}, opset {opset}]"
        if p.returncode != 0:
            res.check(name, False, f"exit {p.returncode}: {p.stderr.strip()}")
            continue
        model = onnx.load(out)
        try:
            onnx.checker.check_model(model, full_check=True)
        except Exception as e:
            res.check(name, False, f"onnx.checker: {e}")
            continue
        h = histogram(model)
        want = {k: v for k, v in expect.items() if k != "hiera"}
        got = {k: h.get(k, 0) for k in (*COUNTED, "functions", "calls") if k in want or h.get(k, 0)}
        res.check(f"{name} structure", all(got.get(k, 0) == v for k, v in want.items()) and
                  all(got.get(k, 0) == 0 for k in COUNTED if k not in want), f"{got}, expected {want}")
        if extra:  # the numbers of the flat conversions are run_model_tests.py's
            errs = []
            ok = True
            for ins, outs in io_sets(folder / entry["io_file"]):
                got_out = run_ort(out, ins)
                for g, w in zip(got_out, outs):
                    ok &= g.shape == w.shape and bool(np.allclose(g, w, rtol=RTOL, atol=ATOL))
                err = max(float(np.max(np.abs(g.astype(np.float64) - w))) if g.size else 0.0 for g, w in zip(got_out, outs))
                errs.append(f"inputs {'x'.join(map(str, ins[0].shape))}: max abs error {err:.3g}")
            res.check(f"{name} onnxruntime vs torch", ok, "; ".join(errs))


def check_refusals(res, exe, folder, work):
    """A subgraph op without a rule is listed by name with where it sits; inspect sees inside."""
    pt2 = folder / "while_cond.default.pt2"
    p = subprocess.run([exe, "inspect", str(pt2)], capture_output=True, text=True, timeout=60)
    text = p.stdout
    res.check("inspect while_cond: ops inside subgraphs", p.returncode == 0 and "aten.mul.Tensor" in text and
              "higher_order.cond" in text, f"exit {p.returncode}")
    res.check("inspect while_cond: subgraph nesting", "while_loop_body_graph_0" in text and "      cond (higher_order.cond): true_graph_0" in text,
              "the cond's branches listed under the loop body" if "true_graph_0" in text else text[-400:])

    # The same archive with the op of the cond's true branch (inside the loop body) renamed.
    bad = work / "while_cond_bad.pt2"
    with zipfile.ZipFile(pt2) as src, zipfile.ZipFile(bad, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith("models/model.json"):
                data = data.replace(b"torch.ops.aten.mul.Tensor", b"torch.ops.aten.no_such_op.default")
            dst.writestr(info, data)
    p = subprocess.run([exe, str(bad), "-o", str(work / "bad.onnx")], capture_output=True, text=True, timeout=60)
    line = p.stderr.strip()
    res.check("unsupported op inside a nested subgraph: refused by name", p.returncode == 4 and
              "aten.no_such_op.default" in line and "in subgraph true_graph_0" in line and
              not (work / "bad.onnx").exists(), f"exit {p.returncode}: {line}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pt2onnx", required=True)
    ap.add_argument("--samples", required=True, help="the samples/ folder")
    args = ap.parse_args(argv)
    folder = Path(args.samples) / "control_flow"
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    res = Checks()
    with tempfile.TemporaryDirectory(prefix="pt2onnx_cflow_") as td:
        work = Path(td)
        for stem, entry in manifest["samples"].items():
            expect = entry["expect"]
            check_structure(res, args.pt2onnx, folder, stem, entry, work, expect, [], "flat")
            for typ, want in expect.get("hiera", {}).items():
                check_structure(res, args.pt2onnx, folder, stem, entry, work, want, ["--hiera", typ], f"--hiera {typ}")
        check_refusals(res, args.pt2onnx, folder, work)
    print(f"{res.passed} passed, {res.failed} failed")
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
