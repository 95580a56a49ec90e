#!/usr/bin/env python3
"""ExportDB: every program of torch._export.db.examples through torch.export, pt2onnx and
torch.onnx.export (dynamo=True), each checked in onnxruntime against eager torch (run by hand,
never CI; needs the torch 2.15 venv with the zoo extras: `scripts/torch_venv.sh 2.15 --zoo`).

For each example: the eager outputs are computed on copies of its example inputs (so a program
that mutates an input is compared with what eager returns after the mutation); the program is
exported with its own dynamic_shapes, saved, converted by pt2onnx (--opset, default 18) and run in
onnxruntime on the example inputs and, where the example has them, on its extra_inputs (another
size of its dynamic dims). torch.onnx.export runs on the same module and inputs. fp32 tolerances:
rtol 1e-4, atol 1e-5. An example whose export fails is listed as such and not converted.

The table is printed and written as markdown (--md, default docs/exportdb.md).

Usage: python scripts/exportdb.py --pt2onnx build/pt2onnx [--only cond_operands,...] [--opset 18]
                                  [--no-torch-onnx] [--md docs/exportdb.md]
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import subprocess
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

import numpy as np
import torch
import torch.utils._pytree as pytree

RTOL, ATOL = 1e-4, 1e-5
ROOT = Path(__file__).resolve().parent.parent


def leaves(tree):
    """Tensors and Python numbers of a pytree, in pytree order (None and strings dropped)."""
    out = []
    for leaf in pytree.tree_leaves(tree):
        if isinstance(leaf, torch.Tensor):
            out.append(leaf.detach().numpy())
        elif isinstance(leaf, (bool, int, float)):
            out.append(np.asarray(leaf))
    return out


def eager(model, args, kwargs):
    args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
    with torch.no_grad():
        return leaves(model(*args, **kwargs))


def compare(got, want):
    """(ok, max abs error, detail)."""
    if len(got) < len(want):
        return False, None, f"{len(got)} outputs, torch has {len(want)}"
    worst = 0.0
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        if g.shape != w.shape:
            return False, None, f"output {i}: shape {list(g.shape)}, torch {list(w.shape)}"
        if w.size == 0:
            continue
        if w.dtype == np.bool_ or np.issubdtype(w.dtype, np.integer):
            err = float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64))))
            if err != 0:
                return False, err, f"output {i}: integer mismatch"
            continue
        err = float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64))))
        worst = max(worst, err)
        if not np.allclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True):
            return False, worst, f"output {i} differs (max abs {err:.3g})"
    return True, worst, ""


def run_ort(path, feeds_by_position, feeds_by_name=None):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    feeds = dict(feeds_by_name or {})
    if not feeds:
        # Inputs that have a default (an initializer of the same name, e.g. state) may be left out.
        feeds = dict(zip(names, feeds_by_position))
    return sess.run(None, feeds)


def user_input_feeds(ep, args, kwargs):
    """The example's inputs keyed by the exported program's user input names."""
    flat = [x for x in pytree.tree_leaves((args, kwargs))]
    names = ep.graph_signature.user_inputs
    tensors = [x for x in flat if isinstance(x, (torch.Tensor, int, float, bool))]
    feeds = {}
    for name, value in zip(names, tensors):
        if isinstance(value, torch.Tensor):
            feeds[name] = value.detach().numpy()
        else:
            feeds[name] = np.asarray(value, dtype=np.int64 if isinstance(value, int) else np.float32)
    return feeds


def input_sets(case):
    """The example inputs, then the second set its file gives (`extra_inputs`, which ExportCase
    does not keep, or the case's `extra_args`)."""
    sets = [(case.example_args, case.example_kwargs)]
    import importlib

    try:
        module = importlib.import_module(f"torch._export.db.examples.{case.name}")
    except ImportError:
        module = None
    extra = getattr(module, "extra_inputs", None) if module else None
    if extra is None:
        extra = case.extra_args
    if extra is not None:
        sets.append((tuple(extra), {}) if isinstance(extra, (tuple, list)) else (extra.args, extra.kwargs))
    return sets


def check_sets(case, run):
    """Runs `run(args, kwargs)` (onnxruntime's outputs) on every input set of the case and compares
    with eager torch: (result, max abs error, detail)."""
    worst = 0.0
    for args, kwargs in input_sets(case):
        want = eager(case.model, args, kwargs)
        try:
            got = run(args, kwargs)
        except Exception as e:  # noqa: BLE001  (reported in the table)
            return "ort fails", None, f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        ok, err, detail = compare(got, want)
        if not ok:
            return "wrong", err, detail
        worst = max(worst, err or 0.0)
    return "ok", worst, ""


def pt2onnx_row(case, pt2onnx, opset, tmp):
    model = case.model
    try:
        ep = torch.export.export(model, case.example_args, case.example_kwargs,
                                 dynamic_shapes=case.dynamic_shapes, strict=False)
    except Exception as e:  # noqa: BLE001  (reported in the table)
        return "export fails", None, f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    pt2 = tmp / f"{case.name}.pt2"
    onnx_path = tmp / f"{case.name}.onnx"
    torch.export.save(ep, str(pt2))
    proc = subprocess.run([str(pt2onnx), str(pt2), "-o", str(onnx_path), "--opset", str(opset), "-q"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return "fails", None, f"exit {proc.returncode}: {proc.stderr.strip()[:160]}"
    return check_sets(case, lambda args, kwargs: run_ort(
        onnx_path, None, user_input_feeds(ep, copy.deepcopy(args), copy.deepcopy(kwargs))))


def torch_onnx_row(case, opset, tmp):
    model = case.model
    path = tmp / f"{case.name}.torch_onnx.onnx"
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            onnx_program = torch.onnx.export(model, copy.deepcopy(case.example_args),
                                             kwargs=copy.deepcopy(case.example_kwargs),
                                             dynamic_shapes=case.dynamic_shapes, dynamo=True, opset_version=opset)
            onnx_program.save(str(path))
    except Exception as e:  # noqa: BLE001
        return "fails", None, f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    return check_sets(case, lambda args, kwargs: run_ort(
        path, [x for x in leaves((copy.deepcopy(args), copy.deepcopy(kwargs)))]))


def fmt(result, err, detail):
    if result == "ok":
        return f"ok ({err:.2e})"
    return f"{result}: {detail}".replace("|", "/")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pt2onnx", type=Path, default=ROOT / "build" / "pt2onnx")
    ap.add_argument("--only", default="")
    ap.add_argument("--opset", type=int, default=18)
    ap.add_argument("--no-torch-onnx", action="store_true")
    ap.add_argument("--md", type=Path, default=ROOT / "docs" / "exportdb.md")
    opts = ap.parse_args()

    from torch._export.db.examples import all_examples

    cases = all_examples()
    names = sorted(cases) if not opts.only else opts.only.split(",")
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for name in names:
            case = cases[name]
            try:
                mine = pt2onnx_row(case, opts.pt2onnx, opts.opset, tmp)
            except Exception as e:  # noqa: BLE001
                traceback.print_exc()
                mine = ("script error", None, f"{type(e).__name__}: {e}")
            theirs = ("not run", None, "") if opts.no_torch_onnx else torch_onnx_row(case, opts.opset, tmp)
            rows.append((name, mine, theirs))
            print(f"{name}: pt2onnx {fmt(*mine)} | torch.onnx {fmt(*theirs)}", flush=True)

    exported = [r for r in rows if r[1][0] != "export fails"]
    both = [r for r in exported if r[2][0] == "ok"]
    ours_ok = [r for r in both if r[1][0] == "ok"]
    summary = (f"{len(rows)} examples; {len(exported)} export; torch.onnx converts {len(both)} of those; "
               f"pt2onnx matches torch on {len(ours_ok)} of them and on "
               f"{sum(r[1][0] == 'ok' for r in exported)} of the {len(exported)} exported")
    print(summary)
    lines = ["# ExportDB through pt2onnx", "",
             f"`scripts/exportdb.py` (torch {torch.__version__}, opset {opts.opset}; rtol {RTOL}, atol {ATOL};"
             " example inputs and, where given, the example's extra inputs).", "", summary + ".", "",
             "| example | pt2onnx (max abs err) | torch.onnx.export (max abs err) |", "|---|---|---|"]
    for name, mine, theirs in rows:
        lines.append(f"| {name} | {fmt(*mine)} | {fmt(*theirs)} |")
    opts.md.parent.mkdir(parents=True, exist_ok=True)
    opts.md.write_text("\n".join(lines) + "\n")
    missing = [r[0] for r in both if r[1][0] != "ok"]
    if missing:
        print("pt2onnx fails where torch.onnx succeeds: " + ", ".join(missing))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
