#!/usr/bin/env python3
"""Makes the control-flow samples in samples/control_flow/ with real torch 2.15 (tooling only).

Each case is a tiny nn.Module whose forward uses a higher-order op: torch.cond (a data-dependent
predicate and one comparing a symbolic size), while_loop (a counter loop whose body reads
weights, and one with a cond nested in its body), scan (reverse, two carries, stacked outputs),
map, and a torch.compiler.nested_compile_region called at three sites (invoke_subgraph, which
only strict export with static shapes keeps). Every other case has a dynamic dim and a second
input set at other sizes, chosen so that the two sets of a cond case take different branches.

The files, checks and manifest are make_op_samples.py's (seeded per case, the exported program
checked against eager torch on both input sets before anything is written, stable bytes); the
manifest adds `"extra_opsets": [23]`, so tests/models/run_model_tests.py converts these at opset
23 too, and `expect` per case: the ONNX op counts (If, Loop, Scan, function calls) that
tests/models/run_control_flow_tests.py checks.

Usage: python make_control_flow_samples.py [--out samples/control_flow] [--only cond_data,scan]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
from torch.export import Dim
from torch._higher_order_ops.map import map as hop_map
from torch._higher_order_ops.scan import scan
from torch._higher_order_ops.while_loop import while_loop

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_op_samples as mop  # noqa: E402  (Case, export checks, manifest entries)
import make_samples as ms  # noqa: E402

SCRIPT = "scripts/make_control_flow_samples.py"
CASES: dict[str, "mop.Case"] = {}
EXPECT: dict[str, dict] = {}
STRICT: set[str] = set()
EXTRA_OPSETS = [23]

B = Dim("batch", min=1, max=64)
N = Dim("steps", min=2, max=64)


def case(name, inputs, dynamic, second, expect, strict=False):
    """Registers a case (make_op_samples.case's arguments) with the ONNX op counts it must give."""

    def register(cls):
        assert name not in CASES, f"duplicate case {name}"
        CASES[name] = mop.Case(name, cls, inputs, dynamic, second)
        EXPECT[name] = expect
        if strict:
            STRICT.add(name)
        return cls

    return register


randn = mop.randn


@case("cond_data", lambda g: (randn(g, 3, 4).abs() + 0.1,), {"x": {0: B}}, lambda g: (-randn(g, 5, 4).abs() - 0.1,),
      {"If": 1})
class CondData(nn.Module):
    """torch.cond on a data-dependent bool tensor (x.sum() > 0); the input sets take each branch; branches read a weight."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: torch.sin(x) * self.w, lambda x: torch.cos(x) + self.w, (x,))


@case("cond_size", lambda g: (randn(g, 3, 4),), {"x": {0: B}}, lambda g: (randn(g, 6, 4),), {"If": 1})
class CondSize(nn.Module):
    """torch.cond on a SymBool (_operator.gt on sym_size: batch > 4); two outputs; shapes stay dynamic in the branches."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        def big(x):
            return self.lin(x).relu(), x.sum(1)

        def small(x):
            return self.lin(x * 2), x.mean(1)

        return torch.cond(x.shape[0] > 4, big, small, (x,))


@case("while_weights", lambda g: (randn(g, 2, 4),), {"x": {0: B}}, lambda g: (randn(g, 5, 4),), {"Loop": 1})
class WhileWeights(nn.Module):
    """while_loop counting to 3 (the condition is checked first); the body reads a weight (a loop-invariant input)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4) * 0.5)

    def forward(self, x):
        def cond_fn(i, h):
            return i < 3

        def body_fn(i, h):
            return i + 1, torch.tanh(h @ self.w) + h

        i, h = while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), x))
        return i, h


@case("while_cond", lambda g: (randn(g, 2, 3),), {"x": {0: B}}, lambda g: (randn(g, 4, 3),), {"Loop": 1, "If": 1})
class WhileCond(nn.Module):
    """A cond nested in a while_loop body: halve while the sum is positive, else add 1; stops on a data-dependent norm."""

    def forward(self, x):
        def cond_fn(i, h):
            return (i < 5) & (h.abs().sum() < 100.0)

        def body_fn(i, h):
            h = torch.cond(h.sum() > 0, lambda h: h * 0.5 - 0.3, lambda h: h + 1.0, (h,))
            return i + 1, h

        return while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), x))


@case("scan_reverse", lambda g: (randn(g, 2, 3), randn(g, 4, 2, 3)), {"xs": {0: N}}, lambda g: (randn(g, 2, 3), randn(g, 7, 2, 3)),
      {"Scan": 1})
class ScanReverse(nn.Module):
    """scan with reverse=True, two carries and two stacked outputs, over a dynamic number of steps; the body reads a weight."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3))

    def forward(self, init, xs):
        def combine(carry, x):
            s, p = carry
            s2 = s + x * self.w
            p2 = torch.tanh(p * x)
            return (s2, p2), (s2 * 2, p2 - s)

        (s, p), (ys, zs) = scan(combine, (init, init + 1), xs, reverse=True)
        return s, p, ys, zs


@case("map_rows", lambda g: (randn(g, 3, 4), randn(g, 4)), {"xs": {0: B}}, lambda g: (randn(g, 6, 4), randn(g, 4)), {"Scan": 1})
class MapRows(nn.Module):
    """map over the leading dim of xs with an extra operand and a weight."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 2))

    def forward(self, xs, y):
        return hop_map(lambda x, y: torch.sigmoid((x + y) @ self.w), xs, y)


class CondBlock(nn.Module):
    """A module whose forward holds a cond (folded by --hiera CondBlock into one function)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        h = self.lin(x)
        return torch.cond(h.sum() > 0, lambda h: torch.relu(h) + x, lambda h: h * 0.5 - x, (h,))


@case("hiera_cond", lambda g: (randn(g, 2, 4),), {"x": {0: B}}, lambda g: (randn(g, 5, 4),),
      {"If": 3, "hiera": {"CondBlock": {"If": 1, "functions": 1, "calls": 3}}})
class HieraCond(nn.Module):
    """Three instances of a module whose forward holds a cond reading the block's input: --hiera folds If nodes."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([CondBlock() for _ in range(3)])

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


@torch.compiler.nested_compile_region
def _region(a, w):
    return torch.sin(a @ w) + a


# Static: with a dynamic dim torch 2.15 inlines every call of the region instead.
@case("invoke_three", lambda g: (randn(g, 2, 4), randn(g, 2, 4), randn(g, 2, 4)), None, None,
      {"functions": 1, "calls": 3, "hiera": {"InvokeThree": {"functions": 2, "calls": 4}}}, strict=True)
class InvokeThree(nn.Module):
    """nested_compile_region called at three sites with one body (invoke_subgraph): one local function, three calls."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 4) * 0.5)

    def forward(self, x, y, z):
        return _region(x, self.w) + _region(y, self.w) * _region(z, self.w)


def make_case(c: "mop.Case", out_dir: Path):
    """make_op_samples.make_case with strict export where the case asks for it."""
    module, inputs, second = c.build()
    exported = {}
    for ir in c.irs:
        ep = torch.export.export(module, inputs, dynamic_shapes=mop._dynamic_shapes(c, module), strict=c.name in STRICT)
        if ir == "core":
            ep = ep.run_decompositions()
        outputs = mop._check_exported(ep, module, inputs, f"{c.name}.{ir}")
        outputs2 = mop._check_exported(ep, module, second, f"{c.name}.{ir} second inputs") if second else None
        exported[ir] = (ep, outputs, outputs2)

    entries = {}
    for ir, (ep, outputs, outputs2) in exported.items():
        stem = f"{c.name}.{ir}"
        pt2, npz = out_dir / f"{stem}.pt2", out_dir / f"{stem}.io.npz"
        mop._stabilize_provenance(ep)
        with tempfile.TemporaryDirectory() as td:  # the file stem names the archive folder
            tmp = Path(td) / pt2.name
            torch.export.save(ep, str(tmp))
            data = tmp.read_bytes()
        if pt2.exists() and ms._zip_content(pt2.read_bytes()) == ms._zip_content(data):
            changed = False
        else:
            changed = ms._write_if_changed(pt2, data)
        arrays = {f"input_{k}": ms._np(t) for k, t in enumerate(inputs)}
        arrays.update({f"output_{k}": o for k, o in enumerate(outputs)})
        if second:
            arrays.update({f"b2_input_{k}": ms._np(t) for k, t in enumerate(second)})
            arrays.update({f"b2_output_{k}": o for k, o in enumerate(outputs2)})
        changed |= ms._write_if_changed(npz, ms._npz_bytes(arrays))
        e = mop.describe(c, module, ep, ir, pt2, npz, arrays, len(outputs))
        e["made_by"]["script"] = SCRIPT
        e["made_by"]["ir_step"] = ("torch.export.export(strict=True)" if c.name in STRICT else "torch.export.export") + (
            " + run_decompositions()" if ir == "core" else "")
        e["expect"] = EXPECT[c.name]
        entries[stem] = e
        print(f"  {'written' if changed else 'unchanged':9s} {pt2.name} ({e['bytes']} bytes) + {npz.name} "
              f"({npz.stat().st_size} bytes); ops {e['op_histogram']}", flush=True)
    return entries


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = Path(__file__).resolve().parent.parent
    ap.add_argument("--out", default=str(root / "samples" / "control_flow"))
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    args = ap.parse_args(argv)
    ver = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    if ver != mop.TORCH:
        print(f"make_control_flow_samples: needs torch {mop.TORCH[0]}.{mop.TORCH[1]}, this is {torch.__version__}",
              file=sys.stderr)
        return 2
    names = args.only.split(",") if args.only else list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        print(f"make_control_flow_samples: no such cases {unknown}; have {sorted(CASES)}", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    header = {"generator": SCRIPT, "tolerance": {"rtol": 1e-4, "atol": 1e-5}, "checks": "light",
              "extra_opsets": EXTRA_OPSETS}
    stems = None if args.only else {f"{n}.{ir}" for n, c in CASES.items() for ir in c.irs}
    failed = ms.make_into_manifest(out_dir, header, names, lambda n: make_case(CASES[n], out_dir), stems)
    if failed:
        print(f"make_control_flow_samples: {len(failed)} case(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
