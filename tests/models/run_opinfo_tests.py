#!/usr/bin/env python3
"""OpInfo conformance: programs exported from torch's OpInfo database (scripts/make_opinfo_samples.py)
converted by pt2onnx and compared with torch's outputs in onnxruntime (ctest `opinfo`, label models).

An index (samples/opinfo/index.json, or a sweep's DIR/index.json) lists archives, each holding
several models (one per OpInfo sample) and an `.io.npz` with `<model>.input_<i>` and
`<model>.output_<i>`. Every model is converted (`--model`, opset 18), checked by onnx.checker
(full_check), run in onnxruntime and compared with torch: fp32 and fp64 rtol 1e-4 / atol 1e-5, fp16
torch's own float16 defaults, rtol 1e-3 / atol 1e-5 (NaN and infinity positions equal), integers
and bools exact, shapes and dtypes exact. A program that updates
an input in place has its `<input>.new` outputs after torch's; only torch's outputs are compared.
Where torch leaves the order of equal values unspecified (sort and argsort unless stable=True, the
index of a mode, median or k-th value: UNORDERED_TIES), indices that differ from torch's only
between equal input values are a match, with the count of such indices in its detail; so are
eigen- and singular vectors that equal torch's once each takes the sign of torch's
(SIGN_FREE_COLUMNS).

Each model ends in one status: matched, refused (pt2onnx exit 4, naming the op), wrong (numbers
differ: a first-order defect; not where the sweep saved the op's float64 run and ours is within
tolerance of it while torch's float32 or float16 output is not: torch's rounding, reported as
matched with both distances), invalid (exit 0 but the checker or onnxruntime rejects the file: a
first-order defect), ort_gap (the checker passes the file and onnxruntime's CPU provider has no
kernel for one of its nodes at that type), ort_half (float16 outputs that differ in onnxruntime
while onnx's reference evaluator, one float16 rounding per node as ONNX defines it and as torch
rounds each half-precision step, reductions accumulated in float16 or in float, gives torch's
numbers: onnxruntime's CPU provider runs float16 chains in float32), error (another exit code, a crash or a timeout). CI mode (default) fails on any
status but matched, except models listed in xfail.json beside the index with their reason, which
fail when they match again; samples the generator left out are printed as skips with its reason.
--table (the sweep) prints the figures by OpInfo instead and fails only on wrong or invalid.

Needs numpy, onnx and onnxruntime (the test venv); never torch.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import functools
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_model_tests import ATOL, RTOL, CheckFailed, compare, onnx_checker  # noqa: E402

OPSET = 18
# A program with a float16 output is compared at torch.testing.assert_close's float16 defaults (one
# float16 ulp is ~1e-3 relative); everything else at the project's fp32 tolerances.
FLOAT16_RTOL, FLOAT16_ATOL = 1e-3, 1e-5


def tolerances(outs):
    if any(np.asarray(o).dtype == np.float16 for o in outs):
        return FLOAT16_RTOL, FLOAT16_ATOL
    return RTOL, ATOL
ORDER = ["wrong", "invalid", "ort_gap", "error", "refused", "ort_half", "matched"]
# What onnxruntime says when it has no CPU kernel for a valid node (double Acos, bool Where, float16
# ScatterElements with a reduction): not the file's fault, and no numbers to compare.
ORT_GAPS = ("NOT_IMPLEMENTED : Could not find an implementation", "data type is not supported")  # an OpInfo's status: its worst model's


def load_arrays(npz, model):
    """(inputs, outputs, float64 outputs by index: the op run on float64 inputs, where the sweep saved them)."""
    ins, outs = [], []
    prefix = model + "."
    while f"{prefix}input_{len(ins)}" in npz.files:
        ins.append(npz[f"{prefix}input_{len(ins)}"])
    while f"{prefix}output_{len(outs)}" in npz.files:
        outs.append(npz[f"{prefix}output_{len(outs)}"])
    outs64 = {i: npz[f"{prefix}output_{i}_f64"] for i in range(len(outs)) if f"{prefix}output_{i}_f64" in npz.files}
    return ins, outs, outs64


def within(actual, expected, rtol, atol):
    try:
        compare([actual], [expected], rtol, atol)
        return True
    except CheckFailed:
        return False


def arbitrated(got, outs, outs64, rtol, atol):
    """Where ours and torch's float32 or half outputs differ: a note when, for every such output,
    ours is within the tolerance of the float64 run and torch's output is not (torch's own
    rounding, not ours); None otherwise."""
    notes = []
    for i, (a, e) in enumerate(zip(got, outs)):
        if within(a, e, rtol, atol):
            continue
        ref = outs64.get(i)
        if ref is None:
            return None
        a64, e64 = np.asarray(a).astype(np.float64), np.asarray(e).astype(np.float64)
        with np.errstate(over="ignore"):  # the float64 run rounded to the output's type: past float16's range, inf
            ref = np.asarray(ref).astype(np.asarray(e).dtype).astype(np.float64)
        if not within(a64, ref, rtol, atol) or within(e64, ref, rtol, atol):
            return None
        def distance(v):  # over the elements where both are finite
            both = np.isfinite(v) & np.isfinite(ref)
            return float(np.abs(v[both] - ref[both]).max()) if both.any() else 0.0
        nans = int((np.isnan(e64) & ~np.isnan(ref)).sum())
        infs = int((np.isinf(e64) & np.isfinite(ref)).sum())
        off = (f"has {nans} NaNs where it has none" if nans else
               f"has {infs} infinities where it is finite" if infs else f"is off it by {distance(e64):.3g}")
        notes.append(f"output {i}: torch's {np.asarray(e).dtype} {off}, ours by {distance(a64):.3g}")
    return "; ".join(notes) if notes else None


# Ops whose float16 result ONNX defines but whose accumulation it leaves to the runtime. The
# reference evaluator's numpy kernels accumulate them in float16; torch's half kernels do so for
# some (its CPU transposed convolution) and accumulate in float, rounding once, for others (sums
# and norms). The arbiter accepts either accumulation, each a valid reading of the file.
FLOAT_ACCUMULATING = ("ReduceSum", "ReduceMean", "ReduceL2", "ReduceL1", "ReduceSumSquare", "ReduceLogSumExp",
                      "ReduceProd", "MatMul", "Gemm", "Softmax", "LogSoftmax", "Conv", "ConvTranspose",
                      "AveragePool", "GlobalAveragePool", "LayerNormalization", "InstanceNormalization",
                      "BatchNormalization", "Einsum", "CumSum")


@functools.lru_cache(maxsize=None)
def _float_accumulating_ops():
    """The reference evaluator's kernels of FLOAT_ACCUMULATING, made once, computing float16 in float."""
    from onnx.reference.ops import load_op

    def in_float(base):
        def _run(self, *args, **kwargs):
            half = any(isinstance(a, np.ndarray) and a.dtype == np.float16 for a in args)
            args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float16 else a for a in args]
            res = base._run(self, *args, **kwargs)
            if not half:
                return res
            return tuple(r.astype(np.float16) if isinstance(r, np.ndarray) and r.dtype == np.float32 else r for r in res)
        return type(base.__name__.split("_")[0], (base,), {"_run": _run, "op_domain": ""})

    out = []
    for name in FLOAT_ACCUMULATING:
        try:
            out.append(in_float(load_op("", name, version=OPSET)))
        except Exception:  # an op the installed onnx does not implement
            pass
    return tuple(out)


# OpInfos whose index outputs torch leaves unspecified among equal values: sort and argsort unless
# stable=True, and the index of "a" mode, median or k-th value. Maps to (the values output or None,
# the indices output).
UNORDERED_TIES = {"sort": (0, 1), "argsort": (None, 0), "mode": (0, 1), "median": (0, 1), "nanmedian": (0, 1),
                  "kthvalue": (0, 1), "topk": (0, 1)}


def _gather(x, idx, axis):
    """x's elements at idx along axis; idx has x's rank, or one less (the reduced dim dropped)."""
    if idx.ndim == x.ndim - 1:
        return np.take_along_axis(x, np.expand_dims(idx, axis), axis).squeeze(axis)
    return np.take_along_axis(x, idx, axis)


def _is_sorted_along(v, axis):
    return any(np.array_equal(v, s, equal_nan=True) for s in (np.sort(v, axis), np.flip(np.sort(v, axis), axis)))


def equal_up_to_ties(opinfo, desc, ins, got, outs, rtol, atol):
    """For an UNORDERED_TIES OpInfo: a note when every other output matches and our indices pick
    the same input values as torch's, along the dim torch's own indices are consistent with, each
    index at most once where the op returns distinct positions; None otherwise."""
    spec = UNORDERED_TIES.get(opinfo)
    if spec is None or "stable=True" in desc or not ins:
        return None
    values_at, indices_at = spec
    if indices_at >= len(outs) or (values_at is not None and values_at >= len(outs)):
        return None
    if any(i != indices_at and not within(a, e, rtol, atol) for i, (a, e) in enumerate(zip(got, outs))):
        return None
    x, ours, theirs = np.asarray(ins[0]), np.asarray(got[indices_at]), outs[indices_at]
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype or x.ndim == 0 or theirs.ndim not in (x.ndim, x.ndim - 1):
        return None
    for axis in range(x.ndim):
        try:
            picked = _gather(x, theirs, axis)
            picked_ours = _gather(x, ours, axis)
        except (IndexError, ValueError):
            continue
        consistent = (np.array_equal(picked, outs[values_at], equal_nan=True) if values_at is not None
                      else _is_sorted_along(picked, axis))
        if not consistent or not np.array_equal(picked, picked_ours, equal_nan=True):
            continue
        if ours.ndim == x.ndim:  # sort, argsort, topk: positions are distinct along the dim
            s = np.sort(ours, axis)
            if (np.diff(s, axis=axis) == 0).any():
                continue
        differ = int((ours != theirs).sum())
        return (f"indices differ from torch's at {differ} of {theirs.size} elements, each between equal values "
                f"(torch leaves the order of ties unspecified)")
    return None


# OpInfos with vectors defined only up to sign (torch leaves the choice to LAPACK): the output whose
# columns are such vectors, and the output (or None) whose matching columns, or rows, change sign
# with them: eigenvectors alone; U's columns with V's columns (svd) or Vh's rows (linalg.svd).
SIGN_FREE_COLUMNS = {"linalg.eigh": (1, None, False), "svd": (0, 2, False), "linalg.svd": (0, 2, True)}


def equal_up_to_signs(opinfo, got, outs, rtol, atol):
    """For a SIGN_FREE_COLUMNS OpInfo: a note when all outputs match once each vector takes the sign
    of torch's (a vector and its negation are the same answer; a singular pair flips together);
    None otherwise."""
    spec = SIGN_FREE_COLUMNS.get(opinfo)
    if spec is None or any(i is not None and i >= len(outs) for i in spec[:2]):
        return None
    lead, partner, partner_rows = spec
    ours, theirs = np.asarray(got[lead]), outs[lead]
    if ours.shape != theirs.shape or ours.ndim < 2:
        return None
    sign = np.where((ours.astype(np.float64) * theirs).sum(axis=-2, keepdims=True) < 0, -1, 1)  # [..., 1, cols]
    aligned = list(got)
    aligned[lead] = (ours * sign).astype(ours.dtype)
    if partner is not None:
        other = np.asarray(got[partner])
        k = other.shape[-2] if partner_rows else other.shape[-1]
        if other.ndim != ours.ndim or k > sign.shape[-1]:
            return None
        pair = sign[..., :k]
        aligned[partner] = (other * (np.swapaxes(pair, -1, -2) if partner_rows else pair)).astype(other.dtype)
    flipped = int((sign < 0).sum())
    if not flipped or not all(within(a, e, rtol, atol) for a, e in zip(aligned, outs)):
        return None
    return f"equal to torch's once {flipped} vectors take its sign (each is defined only up to sign)"


def reference_matches(onnx_path, ins, outs, rtol, atol):
    """Whether onnx's reference evaluator, which follows ONNX's own float16 semantics (each node's
    result rounded to float16, as torch rounds each half-precision step), gives torch's outputs for
    this file, with reductions and contractions accumulated in float16 or in float
    (FLOAT_ACCUMULATING). onnxruntime's CPU provider runs a chain of float16 nodes in float32 and
    rounds only at its end, so its numbers can differ by some float16 ulps from both."""
    from onnx.reference import ReferenceEvaluator
    import warnings
    for new_ops in ([], list(_float_accumulating_ops())):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # its numpy float16 kernels warn on overflow, as torch's infinities are
                ref = ReferenceEvaluator(str(onnx_path), new_ops=new_ops)
                got = ref.run(None, dict(zip(ref.input_names, ins)))
            compare(got[:len(outs)], outs, rtol, atol)
            return True
        except Exception:
            continue
    return False


def refused_ops(stderr):
    """What a refusal names: the ops of `unsupported ops (N): op ×k, ...`, or `op: reason` of a
    rule that refused its case."""
    ops = re.findall(r"(?:: |, )([^,:]+?) ×\d+", stderr)
    if ops:
        return sorted(set(ops))
    m = re.search(r"translating node \S+ \(([^)]+)\)[^:]*: (.*)", stderr)
    if m:
        return [f"{m.group(1)}: {m.group(2)[:90]}"]
    return [stderr.strip().splitlines()[-1][:120] if stderr.strip() else "?"]


def run_ort(onnx_path, inputs):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 4  # failures come back as exceptions; keep the log quiet
    sess = ort.InferenceSession(str(onnx_path), sess_options=so, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    if len(names) != len(inputs):
        raise CheckFailed(f"the model has {len(names)} inputs {names}, the sample {len(inputs)}")
    return [o.name for o in sess.get_outputs()], sess.run(None, dict(zip(names, inputs)))


def check_model(exe, pt2, model, ins, outs, work: Path, timeout, outs64=None, opinfo="", desc="", opset=OPSET):
    """(status, detail, max abs error or None) of one model. A refusal that names a newer opset
    (5-D grid sampling at 20, hash_tensor at 26) is tried again at that opset; its detail says how
    that went ("at opset N: matched ..."), the status stays refused."""
    onnx_path = work / f"{model}.onnx"
    try:
        p = subprocess.run([exe, str(pt2), "--model", model, "-o", str(onnx_path), "--opset", str(opset), "-q"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "error", f"pt2onnx timed out after {timeout} s", None
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode == 4:
        detail = err.strip().splitlines()[0][:300] if err.strip() else "exit 4"
        newer = re.search(r"needs opset (\d+)|\(opset (\d+)\)", err)
        n = int(newer.group(1) or newer.group(2)) if newer else 0
        if opset == OPSET and n > OPSET:
            again = check_model(exe, pt2, model, ins, outs, work, timeout, outs64, opinfo, desc, opset=n)
            detail += f"; at opset {n}: {again[0]} ({again[1][:120]})"
        return "refused", detail, None
    if p.returncode != 0:
        what = f"killed by signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
        return "error", f"{what}: {err.strip()[:300]}", None
    try:
        onnx_checker(onnx_path)
    except Exception as e:
        return "invalid", f"exit 0 but onnx.checker: {str(e).strip().splitlines()[0][:300]}", None
    try:
        names, got = run_ort(onnx_path, ins)
    except CheckFailed as e:
        return "invalid", str(e), None
    except Exception as e:
        message = str(e).strip().splitlines()[0][:300]
        # The file passed the checker; onnxruntime's CPU provider lacks a kernel for this op or type.
        if any(gap in message for gap in ORT_GAPS):
            return "ort_gap", f"onnxruntime: {message}", None
        return "invalid", f"exit 0 but onnxruntime: {message}", None
    extra = names[len(outs):]
    if len(names) < len(outs) or any(not n.endswith(".new") for n in extra):
        return "wrong", f"outputs {names}, torch has {len(outs)}", None
    try:
        worst = compare(got[:len(outs)], outs, *tolerances(outs))
    except CheckFailed as e:
        ties = equal_up_to_ties(opinfo, desc, ins, got[:len(outs)], outs, *tolerances(outs))
        if ties is not None:
            return "matched", ties, None
        signs = equal_up_to_signs(opinfo, got[:len(outs)], outs, *tolerances(outs))
        if signs is not None:
            return "matched", signs, None
        note = arbitrated(got[:len(outs)], outs, outs64 or {}, *tolerances(outs))
        half = any(np.asarray(o).dtype == np.float16 for o in outs)
        if note is None and half and reference_matches(onnx_path, ins, outs, *tolerances(outs)):
            return "ort_half", f"onnxruntime: {str(e)[:300]}; onnx's reference evaluator gives torch's numbers", None
        if note is None:
            return "wrong", str(e)[:400], None
        return "matched", f"within tolerance of the float64 run ({note})", None
    finally:
        onnx_path.unlink(missing_ok=True)
    return "matched", f"max abs error {worst:.3g}", worst


def run_all(exe, index_path: Path, timeout, jobs, only=None):
    """{model: (opinfo, status, detail, err)} over every archive of the index."""
    index = json.loads(index_path.read_text())
    work = Path(tempfile.mkdtemp(prefix="pt2onnx_opinfo_"))
    results = {}
    try:
        tasks = []
        for archive, entry in index["archives"].items():
            pt2 = index_path.parent / archive
            with np.load(index_path.parent / entry["io_file"], allow_pickle=False) as npz:
                for model, meta in entry["models"].items():
                    if only and meta["opinfo"] not in only and model not in only:
                        continue
                    if any(t[0] == model for t in tasks):
                        raise SystemExit(f"{index_path}: model {model} is in two archives; results are keyed by model name")
                    ins, outs, outs64 = load_arrays(npz, model)
                    tasks.append((model, meta, pt2, ins, outs, outs64))
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(check_model, exe, pt2, model, ins, outs, work, timeout, outs64, meta["opinfo"],
                                   meta.get("desc", "")): (model, meta)
                       for model, meta, pt2, ins, outs, outs64 in tasks}
            for f in concurrent.futures.as_completed(futures):
                model, meta = futures[f]
                try:
                    status, detail, err = f.result()
                except Exception as e:  # a harness error is this model's error, not the run's
                    status, detail, err = "error", f"{type(e).__name__}: {e}", None
                results[model] = (meta["opinfo"], status, detail, err, meta.get("desc", ""))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return index, results


def ci_report(index, results, known):
    passed = failed = skipped = 0
    for key, samples in sorted(index.get("not_exported", {}).items()):
        skipped += 1
        print(f"SKIP {key}: not exported: {samples[0]['reason']}")
    for model in sorted(results):
        opinfo, status, detail, err, desc = results[model]
        name = f"{model} ({opinfo}: {desc})"
        if model in known:
            if status == "matched":
                failed += 1
                print(f"FAIL {name}: listed in xfail.json ({known[model]}) but matches now: remove it from the list")
            else:
                skipped += 1
                print(f"SKIP {name}: known failure: {known[model]} (now: {status}: {detail})")
        elif status == "matched":
            passed += 1
            print(f"PASS {name}: {detail}")
        else:
            failed += 1
            print(f"FAIL {name}: {status}: {detail}")
    for model in sorted(set(known) - set(results)):
        failed += 1
        print(f"FAIL xfail.json: names {model}, which the index does not have")
    errs = {m: r[3] for m, r in results.items() if r[3] is not None}
    if errs:
        worst = max(errs, key=errs.get)
        print(f"worst max abs error: {worst} {errs[worst]:.3g} (tolerance rtol {RTOL} atol {ATOL})")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


def table_report(index, results, out_md=None, only=None):
    """The sweep's figures by OpInfo (those in `only` if given). Returns 1 when any program is wrong
    or invalid."""
    by_op = collections.defaultdict(list)
    for model, (opinfo, status, detail, err, desc) in results.items():
        by_op[opinfo].append((status, detail, model, desc))
    opinfos = {k: v for k, v in index.get("opinfos", {}).items() if not only or k in only}
    no_f32 = [k for k, v in opinfos.items() if v.get("status")]
    tried = [k for k in opinfos if k not in no_f32]
    exported = [k for k in tried if opinfos[k].get("exported")]
    status_of = {k: min((s for s, *_ in v), key=ORDER.index) for k, v in by_op.items()}
    count = collections.Counter(status_of.values())
    models = collections.Counter(s for _, s, *_ in results.values())
    dtype = index.get("dtype", "float32")
    lines = [f"OpInfos in op_db: {len(opinfos)}; with {dtype} on the CPU: {len(tried)}; exported (at least one "
             f"sample): {len(exported)}; programs: {len(results)}",
             "", "| | OpInfos | programs |", "|---|---|---|"]
    converted = ("matched", "wrong", "invalid", "ort_gap", "ort_half")
    converted_ops = sum(1 for k, v in by_op.items() if all(s in converted for s, *_ in v))
    converted_models = sum(models[s] for s in converted)
    lines.append(f"| exported | {len(exported)} | {len(results)} |")
    lines.append(f"| converted (every program, exit 0) | {converted_ops} | {converted_models} |")
    lines.append(f"| matched (every program) | {count['matched']} | {models['matched']} |")
    # Matches decided by a rule other than plain closeness to torch's output, each its own row.
    decided_by = (("float64 run", "of them, programs where torch's output is off the float64 run and ours is not"),
                  ("unspecified", "of them, programs whose indices differ from torch's only between equal values"),
                  ("defined only up to sign", "of them, programs whose vectors equal torch's up to sign"))
    for marker, label in decided_by:
        n = sum(1 for _, st, d, *_ in results.values() if st == "matched" and marker in d)
        if n:
            lines.append(f"| {label} | | {n} |")
    lines.append(f"| refused (some program, by name) | {count['refused']} | {models['refused']} |")
    lines.append(f"| error (other exit, crash, timeout) | {count['error']} | {models['error']} |")
    lines.append(f"| wrong (must be 0) | {count['wrong']} | {models['wrong']} |")
    lines.append(f"| invalid ONNX with exit 0 (must be 0) | {count['invalid']} | {models['invalid']} |")
    lines.append(f"| valid, but onnxruntime's CPU provider has no kernel for a node | {count['ort_gap']} | "
                 f"{models['ort_gap']} |")
    if models["ort_half"]:
        lines.append(f"| float16: onnxruntime differs, onnx's reference evaluator gives torch's numbers | "
                     f"{count['ort_half']} | {models['ort_half']} |")
    newer = collections.Counter()
    for k, v in by_op.items():
        if v and all(st != "refused" or re.search(r"; at opset \d+: matched", d) for st, d, *_ in v) and \
                any(st == "refused" for st, *_ in v) and all(st in ("matched", "refused") for st, *_ in v):
            newer[k] += 1
    if newer:
        lines.append(f"| refused at opset {OPSET}, every program matched at the newer opset its refusal names | "
                     f"{len(newer)} ({', '.join(sorted(newer))}) | |")
    if exported:
        lines.append(f"\nmatched / exported OpInfos: {count['matched']} / {len(exported)} = "
                     f"{100.0 * count['matched'] / len(exported):.1f}%")
    refusals = collections.Counter()
    refused_by = collections.defaultdict(list)
    for k, v in by_op.items():
        ops = sorted({o for s, d, *_ in v if s == "refused" for o in refused_ops(d)})
        for o in ops:
            refusals[o] += 1
            refused_by[o].append(k)
    if refusals:
        lines += ["", "Refused, by op (OpInfos):"]
        lines += [f"- {o}: {n} ({', '.join(sorted(refused_by[o])[:8])})" for o, n in refusals.most_common()]
    for status in ("wrong", "invalid", "ort_gap", "ort_half", "error"):
        bad = sorted((m, r) for m, r in results.items() if r[1] == status)
        if bad:
            lines += ["", f"{status.capitalize()} ({len(bad)} programs):"]
            lines += [f"- {r[0]} `{m}` ({r[4]}): {r[2]}" for m, r in bad]
    not_exported = {k: v["skipped"] for k, v in opinfos.items() if v.get("skipped") and not v.get("exported")}
    if not_exported:
        lines += ["", f"Not exported ({len(not_exported)} OpInfos):"]
        lines += [f"- {k}: {v[0]['reason']}" for k, v in sorted(not_exported.items())]
    text = "\n".join(lines)
    print(text)
    if out_md:
        header = (f"# OpInfo sweep\n\nGenerated by `scripts/opinfo_sweep.sh` (torch {index.get('torch_version', '?')}, "
                  f"up to {index.get('per_op', '?')} {dtype} samples per OpInfo, opset {OPSET}; do not edit by hand). "
                  f"Tolerances: rtol {RTOL}, atol {ATOL} (float16: rtol {FLOAT16_RTOL}, atol {FLOAT16_ATOL}), "
                  f"integers exact.\n\n")
        Path(out_md).write_text(header + text + "\n")
    return 1 if count["wrong"] or count["invalid"] else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pt2onnx", required=True)
    ap.add_argument("--index", type=Path, required=True, help="samples/opinfo/index.json or a sweep's index.json")
    ap.add_argument("--table", action="store_true", help="print the sweep's table by OpInfo (not CI)")
    ap.add_argument("--markdown", help="with --table: also write the table to this file")
    ap.add_argument("--results", help="also write every model's status as JSON to this file")
    ap.add_argument("--only", default="", help="comma-separated OpInfo keys or model names")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per conversion")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    t0 = time.monotonic()
    only = set(filter(None, args.only.split(",")))
    index, results = run_all(str(Path(args.pt2onnx).resolve()), args.index, args.timeout, args.jobs, only)
    if args.results:
        Path(args.results).write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    xfail = args.index.parent / "xfail.json"
    known = json.loads(xfail.read_text()) if xfail.exists() and not args.table else {}
    rc = table_report(index, results, args.markdown, only) if args.table else ci_report(index, results, known)
    print(f"took {time.monotonic() - t0:.1f} s")
    return rc


if __name__ == "__main__":
    sys.exit(main())
