#!/usr/bin/env python3
"""Exports torch's OpInfo database (op_db) as .pt2 programs with torch's outputs (tooling only:
needs the torch 2.15 venv, `scripts/torch_venv.sh 2.15 --zoo`, and expecttest, which op_db imports).

For every OpInfo that supports float32 on the CPU (or --dtype, for a sweep), its sample inputs of
that dtype are drawn (seeded per OpInfo) and a bounded number of them chosen (--per-op, spread over the list, a 0-d and an empty
input first where the op has them). Each chosen sample becomes one program: a module whose forward
takes the sample's tensors (input, args and kwargs, lists included) and calls the OpInfo's op with
the rest held constant; it is exported with torch.export (default IR, non-strict). The programs of
one OpInfo are packed as the models of one archive (`package_pt2`, entries deflated), next to an
`.io.npz` holding each model's inputs and torch eager outputs (`<model>.input_<i>`,
`<model>.output_<i>`; complex tensors as (real, imag) pairs, the form pt2onnx gives them; for
float32, float16 and bfloat16 programs also `<model>.output_<i>_f64`, the same op run on float64 inputs).

A sample is left out, with its reason recorded in the index and printed, when its op returns a
Python value or no tensor, draws random numbers (two eager runs under different seeds differ),
export fails, or the exported program disagrees with eager torch.

Two uses:
- `--sweep DIR`: every OpInfo (or --ops), one archive each, into DIR with DIR/index.json; then
  tests/models/run_opinfo_tests.py --index DIR/index.json --table converts and compares them and
  prints the table (scripts/opinfo_sweep.sh does both). Already written archives are kept
  (delete DIR to start over).
- `--commit`: the small set CI runs (SELECTED below: edge cases that found defects and one sample
  per composite family), packed into samples/opinfo/opinfo.pt2 with samples/opinfo/index.json.

Usage: python make_opinfo_samples.py (--sweep DIR [--dtype D] | --commit) [--ops a,b] [--per-op N] [--timeout S]
"""
from __future__ import annotations

import argparse
import hashlib
import io
import itertools
import json
import re
import signal
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.utils._pytree as pytree

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_samples as ms  # noqa: E402  (provenance stabilizer, write-if-changed)

SCRIPT = "scripts/make_opinfo_samples.py"
SEED = 20261204
MAX_DRAWN = 400  # samples drawn from an OpInfo's generator before choosing
EXPORT_RTOL, EXPORT_ATOL = 1e-5, 1e-6  # exported program vs eager (a check of torch.export, not ours)
# Ops that draw random numbers. dropout is not among them: its training form with p < 1 shows as
# random in eager runs, and with p = 1 (or in eval) it is deterministic.
RANDOM_OPS = re.compile(r"\.(rand\w*|normal\w*|bernoulli\w*|uniform\w*|exponential\w*|cauchy\w*|geometric\w*|multinomial|"
                        r"poisson|rrelu\w*)\.")
UNINITIALIZED = re.compile(r"^(new_)?empty")
COMMIT_DIR = Path(__file__).resolve().parent.parent / "samples" / "opinfo"


def _is_0d(s):
    return any(isinstance(t, torch.Tensor) and t.dim() == 0 for t in _tensors(s))


def _is_empty(s):
    return any(isinstance(t, torch.Tensor) and t.numel() == 0 for t in _tensors(s))


# The committed CI set: OpInfo key -> which of its samples (one pick, or a list): a predicate on
# the SampleInput, an index into the drawn list (the `__s<i>` of the sweep's model names), or None for the first that
# exports of those whose tensors are at least 1-d and not empty. First the edge cases that found
# defects (issue 30 and its sweep), then one sample per composite op family added for issue 30
# (their full coverage is samples/ops/composite_*).
SELECTED = {
    "arange": 20, "cumsum": 2, "cumprod": _is_0d, "softmax": 6, "nn.functional.cosine_similarity": 3, "std_mean": 14,
    "var_mean": 14, "nn.functional.group_norm": 12, "nn.functional.conv_transpose2d": 3, "logit": 4,
    "nn.functional.dropout": 4, "sort": 49, "topk": 7, "gather": [5, 3, 4], "scatter": [21, 20], "scatter_add": 6,
    "scatter_reduce.mean": _is_0d, "unflatten": 8, "nn.functional.pixel_unshuffle": [3, 4], "tensordot": 2,
    "_upsample_bilinear2d_aa": [2, 6], "index_add": [0, 6], "take": [0, 6],
    "linspace": lambda s: len(s.args) > 1 and s.args[1] == 1,
    "linspace.tensor_overload": lambda s: len(s.args) > 1 and s.args[1] == 1,
    "norm": lambda s: len(s.args) > 0 and s.args[0] == 0,
    "linalg.vector_norm": lambda s: s.kwargs.get("ord") == 0,
    "argmax": _is_0d,
    "argmin": _is_0d,
    "index_select": _is_0d,
    "index_fill": _is_0d,
    "nn.functional.unfold": lambda s: s.input.shape[0] == 0,
    "nonzero": [_is_0d, 17],
    "roll": [_is_empty, 12],
    "movedim": None, "meshgrid.variadic_tensors": None, "tensor_split": [lambda s: not isinstance(s.args[0], torch.Tensor), 0],
    "hstack": None, "column_stack": None, "kron": None, "rot90": None, "diag": None, "diag_embed": [None, 14],
    "masked_select": None, "argwhere": None, "nan_to_num": None, "hypot": None,
    "copysign": None, "fmax": None, "nansum": None, "count_nonzero": None, "aminmax": None, "trace": None,
    "round.decimals_3": None, "isin": None, "bucketize": None,
    "nn.functional.pairwise_distance": None, "erfinv": None,
    "lgamma": None, "digamma": None,  "mvlgamma.mvlgamma_p_3": None,
    "ldexp": None, "float_power": None, "renorm": None, "linalg.norm": [None, 86],
    "linalg.matrix_norm": [None, 63], "nn.functional.l1_loss": None, "nn.functional.huber_loss": None,
    "nn.functional.binary_cross_entropy_with_logits": None, "nn.functional.kl_div": None,
    "nn.functional.hardshrink": None, "nn.functional.softshrink": None, "nn.functional.threshold": None, "outer": None,
    "vdot": None, "dist": None, "trapezoid": None, "cumulative_trapezoid": None, "searchsorted": None, "msort": None,
    "logspace": None, "logspace.tensor_overload": lambda s: True, "block_diag": None, "inner": None,
    # the decomposition rules of rules_decomp_*.cpp (issue 30's second round)
    "polygamma.polygamma_n_1": None, "special.zeta": None, "i0": None, "special.i0e": None, "special.i1": None,
    "special.i1e": None, "special.spherical_bessel_j0": None, "frexp": None, "median": None, "nanmedian": None,
    "quantile": None, "nanquantile": None, "kthvalue": None, "cummax": None, "cummin": None,
    "index_reduce.prod": None, "index_reduce.mean": None, "index_reduce.amax": None, "index_reduce.amin": None,
    "nn.functional.max_unpool2d": None, "nn.functional.max_unpool3d": None, "nn.functional.adaptive_max_pool1d": None,
    "nn.functional.adaptive_max_pool2d": None, "nn.functional.adaptive_max_pool3d": None, "ravel": None,
    "atleast_3d": lambda s: isinstance(s.input, (list, tuple)), "diagflat": None, "linalg.diagonal": None,
    "diagonal_scatter": None, "linalg.vecdot": None, "linalg.multi_dot": None, "sum_to_size": None,
    "take_along_dim": None, "linalg.vander": None, "combinations": None, "_softmax_backward_data": None,
    "native_dropout_backward": None, "conj_physical": None, "special.chebyshev_polynomial_t": None,
    "special.chebyshev_polynomial_u": None, "special.chebyshev_polynomial_v": None, "special.chebyshev_polynomial_w": None,
    "special.shifted_chebyshev_polynomial_t": None, "special.hermite_polynomial_h": None,
    "special.hermite_polynomial_he": None, "special.laguerre_polynomial_l": None, "special.legendre_polynomial_p": None,
    "nn.functional.triplet_margin_loss": None, "nn.functional.cosine_embedding_loss": None,
    "nn.functional.multi_margin_loss": None, "nn.functional.multilabel_margin_loss": None, "put": None,
    "nonzero_static": lambda s: s.kwargs.get("size", 0) > 0,
    # issue 30's third round: saved statistics, divisor_override, cropping pads, tensor indices,
    # the rules of decomp_index/order/scatter/shape.cpp and the special functions
    "native_batch_norm": [0, 4], "_native_batch_norm_legit": [0, 9], "_batch_norm_with_update": 0, "native_group_norm": 6,
    "nn.functional.avg_pool2d": [2, 4], "nn.functional.avg_pool3d": 2,
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu": 2, "gradient": [2, 4, 7], "einsum": 10,
    "nn.functional.pad.replicate_negative": 2, "nn.functional.pad.circular": 7, "mode": 2, "igamma": 4, "igammac": 4,
    "index_copy": 0, "unfold": 0, "unfold_copy": 0, "repeat_interleave": 3, "_chunk_cat": 4, "_unsafe_masked_index": 2,
    "_unsafe_masked_index_put_accumulate": 2, "max_pool2d_with_indices_backward": 0, "as_strided_scatter": 3,
    "special.ndtri": 0, "special.bessel_j0": 0, "special.bessel_j1": 0, "special.bessel_y0": 0, "special.bessel_y1": 0,
    "special.modified_bessel_k0": 0, "special.modified_bessel_k1": 0, "special.scaled_modified_bessel_k0": 0,
    "special.scaled_modified_bessel_k1": 0, "linalg.inv": 4, "linalg.solve_ex": 6, "linalg.matrix_power": 4,
    "linalg.tensorinv": 1, "linalg.tensorsolve": 1, "cholesky_inverse": 11, "cholesky_solve": 8, "triangular_solve": 4,
    "linalg.solve_triangular": [58, 173], "linalg.cholesky_ex": 8, "linalg.lu_factor_ex": 14, "linalg.lu": 5,
    "lu_unpack": 14, "lu_solve": 6, "linalg.lu_solve": 27, "linalg.slogdet": 8, "lu": 22, "resize_": 0, "resize_as_": 0,
    "_segment_reduce.lengths": 67, "_segment_reduce.offsets": 0, "geqrf": 28, "linalg.qr": 18,
    "linalg.householder_product": 8, "ormqr": 72, "linalg.svdvals": 18, "linalg.pinv": 12, "linalg.pinv.hermitian": 4,
    "pinverse": 4, "linalg.matrix_rank": [36, 40], "linalg.matrix_rank.hermitian": 4, "linalg.cond": 1,
    "linalg.norm.subgradients_at_zero": 44, "norm.nuc": 1,
    # FFTs at opset 18 (DFT's axis an attribute), in float64: the multi-dim samples float32 DFTs got wrong
    "fft.fft2": 2, "fft.fftn": 7, "fft.rfft2": 2, "fft.ifft": None, "fft.irfft": None, "fft.irfftn": None,
    "fft.hfft": None, "fft.ihfftn": None, "fft.hfftn": None, "unique": 0,  # unique: sorted=False
    # torch_nn's chunked linear cross entropy (class indices; probabilities with class weights;
    # per sample with a bias and class weights)
    "nn.functional.linear_cross_entropy.chunked": [0, 67], "nn.functional.linear_cross_entropy.chunked_none": 58,
    "linalg.eigh": 4, "linalg.svd": 215, "svd": 215,  # batches; eigen- and singular vectors compared up to sign
}

# Samples of other dtypes (issue 30's dtype sweeps; sample indices of that dtype's list), each an
# invalid file with exit 0 before its fix: integer floor/ceil are the input; an integer arange
# from float bounds counts in double; integer operands of a float loss are computed in its float
# type; bool max/min/mul/sign/sort/sum, which ONNX does not take, run in int32; float16 isinf in
# float32.
SELECTED_IN = {
    "int64": {"arange": 31, "ceil": 0, "floor": 0, "native_dropout_backward": 0,
              "nn.functional.margin_ranking_loss": 0, "nn.functional.poisson_nll_loss": 0,
              "__rpow__": 4, "nn.functional.pixel_shuffle": 0},  # powers past int64 wrap; DepthToSpace's int64 gap
    "bool": {"addr": 0, "amax": 0, "aminmax": 0, "clamp_min": 0, "fmax": 0, "index_add": 5, "kron": 0,
             "max.reduction_with_dim": 0, "maximum": 0, "msort": 0, "native_dropout_backward": 0, "outer": 0,
             "sign": 0, "sum_to_size": 0,
             # onnxruntime has no bool Where or Unique: computed as And/Or and in int64
             "masked_fill": 0, "diagflat": 2, "unique": 200, "mode": 0},
    "float16": {"atan2": 0, "exp2": 0, "index_add": 0, "isclose": 0, "isfinite": 0, "isinf": 0, "isposinf": 0, "lerp": 0, "logaddexp": 0,
                "scatter_reduce.sum": 0, "sinc": 0,
                # ties torch orders its own way; torch's float16 rounding per step or overflow (the
                # float64 run arbitrates)
                "argsort": 0, "mode": 6, "addbmm": 0, "matrix_exp": 0, "nn.functional.batch_norm": 0,
                "nn.functional.soft_margin_loss": 2,
                # attention in float, as torch's CPU kernel computes it
                "nn.functional.scaled_dot_product_attention": 24},
}


def _plain(s):
    """A sample whose tensors are all at least 1-d and not empty (the composite families' pick)."""
    return all(t.dim() > 0 and t.numel() > 0 for t in _tensors(s))


class Skip(Exception):
    """A sample left out of the programs, with the reason recorded."""


def opinfo_key(op):
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def file_stem(key):
    """A name for files and models: punctuation as `_`, kept at the ends so that `__rsub__` and
    `rsub` stay apart."""
    return re.sub(r"[^A-Za-z0-9]+", "_", key)


def model_name(key, index, dtype=None):
    suffix = "" if dtype in (None, torch.float32) else "_" + str(dtype).replace("torch.", "")
    return file_stem(key) + f"__s{index}{suffix}"


def _tensors(s):
    return [x for x in pytree.tree_leaves((s.input, s.args, s.kwargs)) if isinstance(x, torch.Tensor)]


def draw_samples(op, per_op, dtype=None):
    """(index, SampleInput) pairs: up to per_op, a 0-d and an empty one first where the op has
    them, the rest spread evenly over the drawn list (its first and last included)."""
    torch.manual_seed(SEED + zlib.crc32(opinfo_key(op).encode()) % 100_000)
    drawn = list(itertools.islice(op.sample_inputs("cpu", dtype or torch.float32, requires_grad=False), MAX_DRAWN))
    if not drawn:
        return []
    chosen = []
    for pred in (_is_0d, _is_empty):
        i = next((i for i, s in enumerate(drawn) if pred(s)), None)
        if i is not None and i not in chosen and len(chosen) < per_op:
            chosen.append(i)
    rest = per_op - len(chosen)
    if rest > 0:
        spread = np.linspace(0, len(drawn) - 1, num=min(rest + len(chosen), len(drawn))).round().astype(int)
        for i in spread:
            if len(chosen) >= per_op:
                break
            if int(i) not in chosen:
                chosen.append(int(i))
    return [(i, drawn[i]) for i in sorted(chosen)]


class OpProgram(nn.Module):
    """Calls fn on a sample with its tensors taken from forward's arguments, the rest constant;
    returns the tensors of the result in pytree order."""

    def __init__(self, fn, leaves, spec, tensor_pos):
        super().__init__()
        self.fn, self.leaves, self.spec, self.tensor_pos = fn, leaves, spec, tensor_pos

    def forward(self, *tensors):
        vals = list(self.leaves)
        for p, t in zip(self.tensor_pos, tensors):
            vals[p] = t
        inp, args, kwargs = pytree.tree_unflatten(vals, self.spec)
        out = self.fn(inp, *args, **kwargs)
        return tuple(x for x in pytree.tree_leaves(out) if isinstance(x, torch.Tensor))


def describe(sample, limit=160):
    def f(x):
        if isinstance(x, torch.Tensor):
            return f"T{list(x.shape)}{'' if x.dtype == torch.float32 else ':' + str(x.dtype).replace('torch.', '')}"
        return repr(x)
    leaves, spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
    inp, args, kwargs = pytree.tree_unflatten([f(x) for x in leaves], spec)
    text = ", ".join([str(inp)] + [str(a) for a in args] + [f"{k}={v}" for k, v in kwargs.items()])
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _np(t):
    t = t.detach().cpu().resolve_conj().resolve_neg().contiguous()
    if t.is_complex():
        t = torch.view_as_real(t).contiguous()
    return t.numpy().copy()


def _same(a, b, rtol, atol):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    return np.array_equal(a, b)


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def build_program(op, sample, timeout):
    """(ExportedProgram, input arrays, output arrays) for one sample; raises Skip with the reason."""
    if UNINITIALIZED.search(op.name):
        raise Skip("returns uninitialized memory (empty*); out of scope")
    leaves, spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
    tensor_pos = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
    for i in tensor_pos:
        if leaves[i].layout != torch.strided:
            raise Skip(f"a {leaves[i].layout} input (sparse tensors are out of scope)")
    inputs = [leaves[i].detach().clone().contiguous() for i in tensor_pos]
    module = OpProgram(op.op, leaves, spec, tensor_pos).eval()

    def eager(seed):
        torch.manual_seed(seed)
        with torch.no_grad():
            vals = list(leaves)
            for p, t in zip(tensor_pos, inputs):
                vals[p] = t.clone()
            inp, args, kwargs = pytree.tree_unflatten(vals, spec)
            return op.op(inp, *args, **kwargs)

    try:
        raw = eager(1)
    except Exception as e:
        raise Skip(f"eager torch fails on this sample: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
    out_leaves = pytree.tree_leaves(raw)
    python_values = [x for x in out_leaves if not isinstance(x, torch.Tensor) and x is not None]
    if python_values:
        raise Skip(f"returns a Python value ({type(python_values[0]).__name__}); out of scope")
    outs = [x for x in out_leaves if isinstance(x, torch.Tensor)]
    if not outs:
        raise Skip("returns no tensor")
    if any(t.layout != torch.strided for t in outs):
        raise Skip("returns a sparse tensor; out of scope")
    ref = [_np(t) for t in outs]
    again = [_np(t) for t in pytree.tree_leaves(eager(2)) if isinstance(t, torch.Tensor)]
    if len(again) != len(ref) or not all(_same(a, b, 0, 0) for a, b in zip(again, ref)):
        raise Skip("random: two eager runs under different seeds differ; out of scope")

    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        ep = torch.export.export(module, tuple(t.clone() for t in inputs), strict=False)
        with torch.no_grad():
            exported = [_np(t) for t in ep.module()(*[t.clone() for t in inputs])]
    except _Timeout:
        raise Skip(f"torch.export took over {timeout} s")
    except Exception as e:
        msg = str(e).strip().splitlines()[0][:240] if str(e).strip() else ""
        raise Skip(f"torch.export fails: {type(e).__name__}: {msg}")
    finally:
        signal.alarm(0)
    # A random op whose few draws happened to agree twice (bernoulli of one element) is random all
    # the same: its converted program draws anew.
    targets = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    if any(RANDOM_OPS.search(t) for t in targets):
        raise Skip("random: the program draws random numbers (OpInfo seeds eager torch per call); out of scope")
    if len(exported) != len(ref) or not all(_same(a, b, EXPORT_RTOL, EXPORT_ATOL) for a, b in zip(exported, ref)):
        raise Skip("the exported program disagrees with eager torch (torch.export's defect, not a converter's)")
    ms._stabilize_provenance(ep)
    return ep, [_np(t) for t in inputs], ref, float64_reference(op, leaves, spec, tensor_pos, inputs, outs)


def float64_reference(op, leaves, spec, tensor_pos, inputs, outs):
    """The outputs again with every float32 or half input in float64, by output index, for the
    outputs of those types whose float64 twin came back (the sweep's arbiter where torch's own
    result is off: matrix_exp of entries near 1e5 rounds to errors of 0.05 in float32, and torch's
    float16 kernels round after every step of some ops)."""
    rounded = (torch.float32, torch.float16, torch.bfloat16)
    if not any(t.dtype in rounded for t in inputs):
        return {}
    try:
        torch.manual_seed(1)
        with torch.no_grad():
            vals = list(leaves)
            for p, t in zip(tensor_pos, inputs):
                vals[p] = t.double() if t.dtype in rounded else t.clone()
            inp, args, kwargs = pytree.tree_unflatten(vals, spec)
            raw = [x for x in pytree.tree_leaves(op.op(inp, *args, **kwargs)) if isinstance(x, torch.Tensor)]
    except Exception:
        return {}
    if len(raw) != len(outs):
        return {}
    return {i: _np(r) for i, (r, o) in enumerate(zip(raw, outs))
            if o.dtype in rounded and r.dtype == torch.float64 and r.shape == o.shape}


def write_archive(path: Path, programs: dict):
    """package_pt2 of the programs (model name -> ExportedProgram), rewritten with every entry
    deflated (the program JSON shrinks ~10x) and fixed timestamps, so equal programs give equal bytes."""
    from torch.export.pt2_archive._package import package_pt2

    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td) / path.name
        package_pt2(str(tmp), exported_programs=programs)
        with zipfile.ZipFile(tmp) as zin:
            items = [(i.filename, zin.read(i)) for i in zin.infolist()]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
        for name, data in items:
            zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(zi, data, compresslevel=9)
    return ms._write_if_changed(path, buf.getvalue())


def npz_bytes(arrays):
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def make_opinfo(op, per_op, timeout, pick=None, dtype=None):
    """(programs, arrays, models, skipped) for one OpInfo. pick: a predicate choosing one sample
    (the first that exports), or None to take draw_samples' choice."""
    key = opinfo_key(op)
    programs, arrays, models, skipped = {}, {}, {}, []
    if pick is not None:
        torch.manual_seed(SEED + zlib.crc32(key.encode()) % 100_000)
        pool = list(itertools.islice(op.sample_inputs("cpu", dtype or torch.float32, requires_grad=False), MAX_DRAWN))
        candidates = [(i, s) for i, s in enumerate(pool)
                      if pick is True or (i == pick if isinstance(pick, int) else pick(s))]
    else:
        candidates = draw_samples(op, per_op, dtype)
    for index, sample in candidates:
        if pick is not None and programs:
            break
        name = model_name(key, index, dtype)
        try:
            ep, ins, outs, outs64 = build_program(op, sample, timeout)
        except Skip as e:
            skipped.append({"sample": index, "desc": describe(sample), "reason": str(e)})
            continue
        programs[name] = ep
        for i, a in enumerate(ins):
            arrays[f"{name}.input_{i}"] = a
        for i, a in enumerate(outs):
            arrays[f"{name}.output_{i}"] = a
        for i, a in outs64.items():
            arrays[f"{name}.output_{i}_f64"] = a
        models[name] = {"opinfo": key, "sample": index, "desc": describe(sample),
                        "inputs": len(ins), "outputs": len(outs)}
    return programs, arrays, models, skipped


def opinfos_with(dtype, names):
    from torch.testing._internal.common_methods_invocations import op_db

    ops, without = [], []
    for op in op_db:
        key = opinfo_key(op)
        if names and key not in names and op.name not in names:
            continue
        (ops if op.supports_dtype(dtype, "cpu") else without).append(op)
    return ops, without


def sweep(out: Path, names, per_op, timeout, dtype):
    out.mkdir(parents=True, exist_ok=True)
    index_path = out / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    dtype_name = str(dtype).replace("torch.", "")
    if index and index.get("dtype", "float32") != dtype_name:
        raise SystemExit(f"{index_path} holds a {index.get('dtype', 'float32')} sweep; use another DIR for {dtype_name}")
    index.update({"generator": SCRIPT, "torch_version": torch.__version__, "per_op": per_op, "dtype": dtype_name})
    index.setdefault("archives", {})
    index.setdefault("opinfos", {})
    ops, without = opinfos_with(dtype, names)
    for op in without:
        index["opinfos"][opinfo_key(op)] = {"status": f"no {dtype_name} on the CPU"}
    t_all = time.monotonic()
    for n, op in enumerate(ops):
        key = opinfo_key(op)
        if key in index["opinfos"] and index["opinfos"][key].get("done"):
            continue
        t0 = time.monotonic()
        stem = file_stem(key)
        try:
            programs, arrays, models, skipped = make_opinfo(op, per_op, timeout, dtype=dtype)
        except Exception as e:  # the sample generator itself failed
            programs, models, skipped = {}, {}, [{"sample": -1, "desc": "", "reason": f"sample_inputs fails: {type(e).__name__}: {e}"[:300]}]
        rec = {"done": True, "exported": len(models), "skipped": skipped}
        if programs:
            try:
                write_archive(out / f"{stem}.pt2", programs)
                ms._write_if_changed(out / f"{stem}.io.npz", npz_bytes(arrays))
                index["archives"][f"{stem}.pt2"] = {"io_file": f"{stem}.io.npz", "models": models}
            except Exception as e:
                rec = {"done": True, "exported": 0, "skipped": skipped + [
                    {"sample": -1, "desc": "", "reason": f"package_pt2 fails: {type(e).__name__}: {str(e)[:200]}"}]}
        index["opinfos"][key] = rec
        reasons = "; ".join(sorted({s["reason"][:90] for s in skipped}))
        print(f"[{n + 1}/{len(ops)}] {key}: {len(models)} exported ({time.monotonic() - t0:.1f} s)"
              + (f"; left out: {reasons}" if skipped else ""), flush=True)
        if n % 10 == 0:
            index_path.write_text(json.dumps(index, indent=1) + "\n")
    index_path.write_text(json.dumps(index, indent=1) + "\n")
    print(f"{len(ops)} OpInfos with {dtype_name} ({len(without)} without) in {time.monotonic() - t_all:.0f} s; "
          f"index {index_path}")


def commit(timeout):
    from torch.testing._internal.common_methods_invocations import op_db

    by_key = {opinfo_key(op): op for op in op_db}
    missing = sorted((set(SELECTED) | {k for picks in SELECTED_IN.values() for k in picks}) - set(by_key))
    if missing:
        raise SystemExit(f"SELECTED names OpInfos op_db does not have: {missing}")
    programs, arrays, models, skipped = {}, {}, {}, {}
    for key, picks in SELECTED.items():
        for pick in picks if isinstance(picks, list) else [picks]:
            p, a, m, s = make_opinfo(by_key[key], 1, timeout, pick=_plain if pick is None else pick)
            if not p:
                skipped[key] = s[:3] or [{"reason": "no sample matches the selection"}]
                print(f"  NOT EXPORTED {key}: {skipped[key][0]['reason']}")
                continue
            programs.update(p)
            arrays.update(a)
            models.update(m)
            print(f"  {key}: {next(iter(m.values()))['desc']}")
    for dtype_name, picks in SELECTED_IN.items():
        for key, pick in picks.items():
            p, a, m, s = make_opinfo(by_key[key], 1, timeout, pick=pick, dtype=getattr(torch, dtype_name))
            if not p:
                skipped[f"{key} ({dtype_name})"] = s[:3] or [{"reason": "no sample matches the selection"}]
                print(f"  NOT EXPORTED {key} ({dtype_name}): {skipped[f'{key} ({dtype_name})'][0]['reason']}")
                continue
            programs.update(p)
            arrays.update(a)
            models.update(m)
            print(f"  {key} ({dtype_name}): {next(iter(m.values()))['desc']}")
    COMMIT_DIR.mkdir(parents=True, exist_ok=True)
    pt2, npz = COMMIT_DIR / "opinfo.pt2", COMMIT_DIR / "opinfo.io.npz"
    write_archive(pt2, programs)
    ms._write_if_changed(npz, npz_bytes(arrays))
    index = {"generator": SCRIPT + " --commit", "torch_version": torch.__version__,
             "archives": {pt2.name: {"io_file": npz.name, "sha256": hashlib.sha256(pt2.read_bytes()).hexdigest(),
                                     "bytes": pt2.stat().st_size, "models": models}},
             "not_exported": skipped}
    ms._write_if_changed(COMMIT_DIR / "index.json", (json.dumps(index, indent=1) + "\n").encode())
    print(f"{len(models)} programs in {pt2} ({pt2.stat().st_size} bytes) + {npz.name} ({npz.stat().st_size} bytes)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--sweep", type=Path, metavar="DIR", help="every OpInfo into DIR (kept between runs)")
    mode.add_argument("--commit", action="store_true", help="the CI set into samples/opinfo/")
    ap.add_argument("--ops", default="", help="comma-separated OpInfo names or name.variant (sweep)")
    ap.add_argument("--per-op", type=int, default=5, help="samples per OpInfo (sweep)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per export")
    # numpy holds every one of these (bfloat16 it has not), and onnxruntime's CPU kernels take them.
    ap.add_argument("--dtype", default="float32",
                    choices=["float32", "float64", "float16", "int64", "int32", "uint8", "bool"],
                    help="the sample inputs' dtype (sweep)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    if args.commit:
        commit(args.timeout)
    else:
        sweep(args.sweep, set(filter(None, args.ops.split(","))), args.per_op, args.timeout,
              getattr(torch, args.dtype))


if __name__ == "__main__":
    main()
