#!/usr/bin/env python3
"""Compares pt2onnx's rule registry with torchlib's (onnxscript 0.7.2, torch.onnx's aten -> ONNX
rules): prints our count of distinct aten base ops and every torchlib aten op that has no rule
here, each with why. Tooling only (needs the torch venv: torch and onnxscript).

Base op: the name between "aten." and the overload, without a trailing "_" of in-place forms, as
build/tools/list_rules counts it. Reasons come first from the explicit table REASONS (checked
facts per op), else from torch's dispatcher: an op whose every overload is CompositeImplicitAutograd
is traced through by torch.export (it writes the ops the composite calls), unless it is one of the
composites torch.export keeps (PRESERVED below, found by exporting them). An op with neither is an
error: the table must say why it is missing, so the list cannot silently grow.

Usage: python torchlib_gap.py [--list-rules build/tools/list_rules] [--write docs/ops.md]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import torch
import onnxscript
from onnxscript.function_libs.torch_lib import registration
import onnxscript.function_libs.torch_lib.ops  # noqa: F401  (fills the registry)

NOT_YET = "not yet"
COMPLEX = ("complex tensors: pt2onnx has no complex dtype in its translation yet (ONNX DFT works on a "
           "trailing real/imaginary axis; the lowering of complex values to pairs is not written)")
REASONS = {
    "_conj": "complex only: on real tensors torch.export writes no conjugation",
    "_fft_c2c": NOT_YET + ": " + COMPLEX, "_fft_c2r": NOT_YET + ": " + COMPLEX, "_fft_r2c": NOT_YET + ": " + COMPLEX,
    "complex": NOT_YET + ": " + COMPLEX, "polar": NOT_YET + ": " + COMPLEX,
    "view_as_complex": NOT_YET + ": " + COMPLEX, "view_as_complex_copy": NOT_YET + ": " + COMPLEX,
    "view_as_real": NOT_YET + ": " + COMPLEX, "view_as_real_copy": NOT_YET + ": " + COMPLEX,
    "_grouped_mm": NOT_YET + ": grouped matmul over offsets (MoE experts) needs a Loop or a padded batch",
    "_upsample_bilinear2d_aa": NOT_YET + ": antialiased downsampling (F.interpolate antialias=True; "
                               "Resize has antialias only from opset 18 and another kernel)",
    "_upsample_bicubic2d_aa": NOT_YET + ": antialiased downsampling (F.interpolate antialias=True)",
    "allclose": "returns a Python bool: torch.export refuses the data-dependent branch (checked: export fails)",
    "equal": "returns a Python bool: torch.export refuses the data-dependent branch (checked: export fails)",
    "embedding_renorm": NOT_YET + ": nn.Embedding(max_norm=...) rescales rows of the weight in place",
    "getitem": "TorchScript list indexing: FX graphs carry it as _operator.getitem, which has a rule",
    "hardtanh_backward": "backward-only (inference graphs never contain it)",
    "logcumsumexp": NOT_YET + ": needs a numerically stable scan (log of a cumulative sum of exp "
                    "underflows where values span more than the float range)",
    "special_erfcx": NOT_YET + ": exp(x^2) * erfc(x) overflows or loses every digit in float32 "
                     "outside [-9, 4]; needs a rational approximation",
    "tensor": "TorchScript constructor from Python values: torch.export writes constants and lifted tensors",
    "sym_storage_offset": "storage offsets: torch.export of functional programs does not emit it "
                          "(no strided-storage model in ONNX)",
}
# Composite ops that torch.export nevertheless keeps in a default-IR program (seen in exports).
PRESERVED: set[str] = set()


def base(name: str) -> str:
    b = name.split(".")[0]
    if len(b) > 1 and b.endswith("_") and not b.startswith("__"):
        b = b[:-1]
    return b


def our_bases(list_rules: Path) -> set[str]:
    out = subprocess.run([str(list_rules)], check=True, capture_output=True, text=True).stdout
    return {base(line.split()[0][5:]) for line in out.splitlines() if line.startswith("aten.")}


def all_composite(op: str) -> bool:
    """Whether every overload of aten::op is CompositeImplicitAutograd in this torch."""
    packet = getattr(torch.ops.aten, op, None)
    if packet is None:
        return False
    found = []
    for overload in packet.overloads():
        qual = f"aten::{op}" + ("" if overload == "default" else f".{overload}")
        try:
            found.append(torch._C._dispatch_has_kernel_for_dispatch_key(qual, "CompositeImplicitAutograd"))
        except RuntimeError:  # listed overload the dispatcher does not know
            continue
    return bool(found) and all(found)


def reason(op: str) -> str | None:
    if op in REASONS:
        return REASONS[op]
    if all_composite(op) and op not in PRESERVED:
        return ("CompositeImplicitAutograd in torch " + torch.__version__.split("+")[0] +
                ": torch.export traces through it, so no default- or core-IR program contains it")
    return None


def main(argv=None) -> int:
    root = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list-rules", default=str(root / "build" / "tools" / "list_rules"))
    ap.add_argument("--write", default=None, help="also write the table as markdown to this file")
    args = ap.parse_args(argv)

    ours = our_bases(Path(args.list_rules))
    torchlib = {base(n[len("aten::"):]) for n in registration.default_registry._registry if n.startswith("aten::")}
    missing = sorted(torchlib - ours)
    rows, unexplained = [], []
    for op in missing:
        r = reason(op)
        (rows if r else unexplained).append((op, r))
    covered = len(torchlib & ours)
    print(f"pt2onnx: {len(ours)} distinct aten base ops with rules; torchlib (onnxscript {onnxscript.__version__}): "
          f"{len(torchlib)}, of which {covered} have a rule here and {len(missing)} do not:")
    for op, r in rows:
        print(f"  {op:32s} {r}")
    for op, _ in unexplained:
        print(f"  {op:32s} NO REASON GIVEN (add it to REASONS in {Path(__file__).name})")
    if args.write:
        write_markdown(Path(args.write), ours, torchlib, rows)
    return 1 if unexplained else 0


def write_markdown(path: Path, ours, torchlib, rows):
    lines = [
        "# Op coverage against torchlib",
        "",
        "Generated by `scripts/torchlib_gap.py --write docs/ops.md` (torch venv; do not edit by hand).",
        "A *base op* is the aten name without overload or in-place `_` (`add.Tensor` and `add_.Scalar`",
        "are both `add`), as `build/tools/list_rules --count` counts it.",
        "",
        f"- pt2onnx rules: **{len(ours)}** distinct aten base ops",
        f"- torchlib (onnxscript {onnxscript.__version__}): {len(torchlib)}; with a rule here: "
        f"{len(torchlib & ours)}; without: {len(rows)}",
        f"- with a rule here but not in torchlib: {len(ours - torchlib)}",
        "",
        "## torchlib ops without a rule here, and why",
        "",
        "`not yet` marks work still to do; the others cannot appear in a program pt2onnx reads",
        "(torch.export decomposes or refuses them) or are not inference ops.",
        "",
        "| op | reason |",
        "|---|---|",
    ]
    lines += [f"| `{op}` | {r} |" for op, r in rows]
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
