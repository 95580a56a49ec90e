#!/usr/bin/env python3
"""Compares pt2onnx's rule registry with torchlib's (onnxscript 0.7.2, torch.onnx's aten -> ONNX
rules): prints our count of distinct aten base ops and every torchlib aten op that has no rule
here, each with why. Tooling only (needs the torch venv: torch and onnxscript).

Base op: the name between "aten." and the overload, without a trailing "_" of in-place forms, as
build/tools/list_rules counts it. Reasons come from the table REASONS, one per op, each checked by
hand (by exporting the op with torch 2.15 where the reason says "checked"). Being
CompositeImplicitAutograd is no reason: torch 2.15's default IR keeps such ops (divide, bilinear,
stft ... are written as they are), only core IR decomposes them. An op without a reason is an error,
so the list cannot grow silently.

Usage: python torchlib_gap.py [--list-rules build/tools/list_rules] [--write docs/ops.md]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import onnxscript
from onnxscript.function_libs.torch_lib import registration
import onnxscript.function_libs.torch_lib.ops  # noqa: F401  (fills the registry)

NOT_YET = "not yet"
COMPLEX = ("complex tensors: ONNX runtimes have few complex64 kernels and ONNX DFT works on a trailing "
           "real/imaginary axis of 2, so complex values must be lowered to such pairs, which pt2onnx does not do yet")
REASONS = {
    "_conj": "complex only: on real tensors torch.export writes no conjugation (checked: x.conj() exports as nothing)",
    "conj": "complex only: on real tensors torch.export writes no conjugation (checked: x.conj() exports as nothing)",
    "stft": NOT_YET + ": its result is complex; " + COMPLEX,
    "is_nonzero": "returns a Python bool: torch.export refuses the data-dependent guard (checked: export fails)",
    "_fft_c2c": NOT_YET + ": " + COMPLEX, "_fft_c2r": NOT_YET + ": " + COMPLEX, "_fft_r2c": NOT_YET + ": " + COMPLEX,
    "complex": NOT_YET + ": " + COMPLEX, "polar": NOT_YET + ": " + COMPLEX,
    "view_as_complex": NOT_YET + ": " + COMPLEX, "view_as_complex_copy": NOT_YET + ": " + COMPLEX,
    "view_as_real": NOT_YET + ": " + COMPLEX, "view_as_real_copy": NOT_YET + ": " + COMPLEX,
    "_upsample_bilinear2d_aa": NOT_YET + ": F.interpolate(antialias=True); ONNX Resize has antialias from "
                               "opset 18, not yet matched against torch's filter",
    "_upsample_bicubic2d_aa": NOT_YET + ": F.interpolate(antialias=True); ONNX Resize has antialias from "
                              "opset 18, not yet matched against torch's filter",
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
    "sym_storage_offset": NOT_YET + ": a view's storage offset; ONNX has no strided storage, and "
                          "storage_offset() of a static view exports as a constant (checked)",
}
def base(name: str) -> str:
    b = name.split(".")[0]
    if len(b) > 1 and b.endswith("_") and not b.startswith("__"):
        b = b[:-1]
    return b


def our_bases(list_rules: Path) -> set[str]:
    out = subprocess.run([str(list_rules)], check=True, capture_output=True, text=True).stdout
    return {base(line.split()[0][5:]) for line in out.splitlines() if line.startswith("aten.")}


def reason(op: str) -> str | None:
    return REASONS.get(op)


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
    lines += [
        "",
        "## Notes on some rules",
        "",
        "- **Random ops** (`rand`, `randn`, `rand_like`, `randn_like`, `randint`, `randint_like`, `normal`,",
        "  `normal_`, `bernoulli`, `multinomial`) become ONNX `RandomUniform(Like)`, `RandomNormal(Like)` and",
        "  `Multinomial` without a `seed` attribute: every run draws new numbers, and torch's generator",
        "  state is not carried over. They match torch in distribution only; the `random` op sample checks",
        "  shape, dtype, range, mean and standard deviation (tolerances of 6 sigma or more). `bernoulli` is",
        "  `uniform < p`, not ONNX `Bernoulli`: onnxruntime 1.32's `Bernoulli` draws ones with probability",
        "  1 - p. `multinomial` without replacement is refused unless it draws one sample per row.",
        "- **Recurrent layers** (`lstm`, `gru`, `rnn_tanh`, `rnn_relu`): one ONNX node per layer, weights",
        "  re-sliced into ONNX's gate order, GRU with `linear_before_reset=1`; refused: LSTM projections",
        "  (`proj_size`) and dropout in training mode. Core IR unrolls them into matmuls, which translate too.",
        "- **unique**: `_unique2`/`unique_dim` as ONNX `Unique` (sorted); `sorted=False` is refused (torch's",
        "  order is unspecified), `unique_consecutive` with `dim` is refused.",
        "- **Windows** are computed as cosine sums (ONNX `HammingWindow` fixes alpha = 25/46, torch takes 0.54).",
        "- **Bit shifts** are exact for shift amounts in [0, bits of the dtype).",
    ]
    path.write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
