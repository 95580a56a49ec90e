"""What the end-to-end tests share: sample inputs and torch outputs from `<stem>.io.npz`, an
onnxruntime session on one thread, and the comparison with stated tolerances.

Needs numpy and onnxruntime (the test venv)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

RTOL = 1e-4  # fp32 vs torch eager, as README states
ATOL = 1e-5


class CheckFailed(Exception):
    pass


def load_io(npz_path: Path, prefix=""):
    """Inputs and torch outputs; prefix "b2_" gives a dynamic sample's second size."""
    with np.load(npz_path, allow_pickle=False) as z:
        ins = [z[f"{prefix}input_{i}"] for i in range(len(z.files)) if f"{prefix}input_{i}" in z.files]
        outs = [z[f"{prefix}output_{i}"] for i in range(len(z.files)) if f"{prefix}output_{i}" in z.files]
    return ins, outs


def max_error(actual, expected, rtol=RTOL, atol=ATOL, equal_nan=False):
    """Raises CheckFailed beyond rtol/atol (or on shape/dtype mismatch, or any difference in a
    non-float output); returns the max abs error. With equal_nan, a NaN must meet a NaN and the
    error is over the other elements (two conversions of one program, where torch's reference
    itself is NaN)."""
    if len(actual) != len(expected):
        raise CheckFailed(f"{len(actual)} outputs, expected {len(expected)}")
    worst = 0.0
    for i, (a, e) in enumerate(zip(actual, expected)):
        a = np.asarray(a)
        if a.shape != e.shape or a.dtype != e.dtype:
            raise CheckFailed(f"output {i}: {a.dtype}{a.shape}, expected {e.dtype}{e.shape}")
        if not np.issubdtype(e.dtype, np.floating):
            if (a != e).any():
                raise CheckFailed(f"output {i}: {int((a != e).sum())} elements differ")
            continue
        with np.errstate(invalid="ignore"):  # inf - inf is NaN: counted below, not warned about
            err = np.abs(a.astype(np.float64) - e.astype(np.float64))
        if equal_nan:  # equal elements (infinities too) and NaN meeting NaN count as no error
            err = err[~((np.isnan(a) & np.isnan(e)) | (a == e))]
        worst = max(worst, float(err.max()) if err.size else 0.0)
        if not np.allclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan):
            raise CheckFailed(f"output {i}: max abs error {worst:.3g} beyond rtol {rtol} atol {atol}")
    return worst


def run_ort(model, inputs, optimize=True):
    """Runs a model (a path, or serialized bytes) on the CPU provider, one thread. With
    optimize=False, graph optimizations are off: the ONNX runs as written, which a reference
    comparison needs where onnxruntime's fused kernels compute in their own, CPU-dependent
    arithmetic (QDQ fused into integer kernels: docs/quantization.md)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    if not optimize:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    data = model if isinstance(model, bytes) else str(model)
    sess = ort.InferenceSession(data, sess_options=so, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    return sess.run(None, dict(zip(names, inputs)))


# Why a sweep leaves an archive out: the refusal tests and `models` check these conversions.
PLAIN_REFUSED = "the plain conversion exits non-zero at the default opset (the models and refusal tests check it)"


def types_left_out(types):
    """Why an archive whose module types are `types` (None: several models, or unreadable) cannot
    be swept, or None."""
    if types is None:
        return "several models, or inspect refuses it"
    return None if types else "no module types"


def tally(counts, stem: str, reason):
    """Counts the archive as checked, or as left out with `reason` printed. True if checked."""
    if reason:
        counts["left out"] += 1
        print(f"skip {stem}: {reason}", flush=True)
        return False
    counts["checked"] += 1
    return True


def sweep_main(doc: str, archives_to_check, minimum: int):
    """The command line of a sweep over the sample archives (--pt2onnx, --samples):
    `archives_to_check(exe, samples, work, counts)` yields (name, check) and counts what it checks
    and leaves out; fewer than `minimum` checked means the walk is broken. Returns the exit status."""
    import argparse
    import tempfile
    from collections import Counter
    from pathlib import Path

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--pt2onnx", required=True)
    parser.add_argument("--samples", required=True, type=Path)
    args = parser.parse_args()
    exe = str(Path(args.pt2onnx).resolve())
    counts = Counter()
    with tempfile.TemporaryDirectory(prefix="pt2onnx-sweep-") as tmp:
        status = run_checks(archives_to_check(exe, args.samples.resolve(), Path(tmp), counts))
    print(f"{counts['checked']} archives checked, {counts['left out']} left out")
    if counts["checked"] < minimum:
        print(f"FAIL only {counts['checked']} archives checked")
        return 1
    return status


def run_checks(checks):
    """Runs (name, fn) pairs: one PASS/FAIL line each (fn returns the detail or raises), then the
    summary `N passed, M failed`. Returns the exit status: 1 if any failed."""
    import traceback

    passed = failed = 0
    for name, fn in checks:
        try:
            detail = fn()
            passed += 1
            print(f"PASS {name}: {detail}", flush=True)
        except CheckFailed as e:
            failed += 1
            print(f"FAIL {name}: {e}", flush=True)
        except Exception as e:  # a library error fails this check, not the run
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e} | {traceback.format_exc(limit=3)!r}", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
