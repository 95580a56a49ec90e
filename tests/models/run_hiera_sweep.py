#!/usr/bin/env python3
"""`--hiera` on every module type of every sample (run by ctest as the `hiera_sweep` test).

run_hiera_tests.py checks chosen types of chosen samples in depth (function counts, sizes). This
sweep checks breadth, on programs nobody wrote for the hierarchy (the zoo's transformers and
torchvision models, the op and quantization samples): for every sample archive with one model, a
torch reference (`<stem>.io.npz`) and a plain conversion that succeeds, the module types that
`inspect --json` lists are folded

- all at once (nested functions), checked with onnx.checker (full_check), and
- each alone,

and onnxruntime must give the plain conversion's outputs on the sample's inputs (each dynamic
size; rtol 1e-4, atol 1e-5, a NaN where the plain model has a NaN). A fold that convert refuses
must be the refusal of an instance that cannot become one call (exit 4, one stderr line naming
the instance, no output written); it is printed with its reason. Archives left out are counted
by reason in the summary.

Needs only numpy, onnx and onnxruntime (the test venv). Prints one line per archive and a summary
`N passed, M failed`; exits 1 on failure.
"""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ort_compare import (  # noqa: E402
    PLAIN_REFUSED, CheckFailed, load_io, max_error, run_ort, sweep_main, tally, types_left_out)

# What convert says, exit 4, when the calls of an instance would form a cycle with the nodes
# outside it (README: "--hiera refuses instances whose contraction would create a cycle").
CYCLE_REFUSAL = "cannot fold instance"


def module_types(exe, archive: Path):
    """The module types of the archive's one model (last dotted part, as --hiera takes them), or
    None when the archive holds several models or inspect cannot read it."""
    proc = subprocess.run([exe, "inspect", str(archive), "--json"], capture_output=True, text=True, timeout=300)
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        return None
    models = doc["models"] if isinstance(doc["models"], list) else [doc["models"]]
    if len(models) != 1:
        return None
    return sorted({t.rsplit(".", 1)[-1] for t in models[0].get("module_types", {})})


def convert(exe, archive: Path, out: Path, types):
    """Returns None on success, else the refusal line; raises CheckFailed on anything but the
    documented cycle refusal."""
    out.unlink(missing_ok=True)
    cmd = [exe, str(archive), "-q", "-o", str(out)] + [a for t in types for a in ("--hiera", t)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=out.parent)
    if proc.returncode == 0:
        return None
    lines = proc.stderr.strip().splitlines()
    if proc.returncode != 4 or len(lines) != 1 or CYCLE_REFUSAL not in lines[0] or out.exists():
        raise CheckFailed(f"--hiera {' '.join(types)}: exit {proc.returncode}, output left: {out.exists()}, "
                          f"stderr {proc.stderr.strip()[:300]!r}")
    return lines[0]


def plain_runs(flat: Path, npz: Path):
    """(inputs, the plain conversion's outputs) at each input size: the second size of every
    dynamic dim too, where the sample has one."""
    runs = []
    for prefix in ("", "b2_"):
        inputs, _ = load_io(npz, prefix)
        if inputs:
            runs.append((inputs, run_ort(flat, inputs)))
    return runs


def compare_with_flat(model: Path, runs):
    return max((max_error(run_ort(model, inputs), outputs, equal_nan=True) for inputs, outputs in runs), default=0.0)


def check_archive(exe, archive: Path, npz: Path, types, flat: Path, work: Path):
    import onnx

    folded = work / "folded.onnx"
    runs = plain_runs(flat, npz)  # once per archive, for every fold
    notes = []
    worst = 0.0
    refusal = convert(exe, archive, folded, types)
    if refusal is None:
        onnx.checker.check_model(str(folded), full_check=True)
        functions = len(onnx.load(str(folded), load_external_data=False).functions)
        if functions == 0:
            raise CheckFailed(f"--hiera {' '.join(types)}: no function made")
        worst = compare_with_flat(folded, runs)
        notes.append(f"all {len(types)} types at once: {functions} functions")
    else:
        notes.append(f"all at once refused ({refusal.split(': ', 2)[-1][:120]})")
    refused = []
    for t in types:
        try:
            refusal = convert(exe, archive, folded, [t])
            if refusal is None:
                worst = max(worst, compare_with_flat(folded, runs))
            else:
                refused.append(t)
        except CheckFailed as e:
            raise CheckFailed(f"--hiera {t} alone: {e}") from None
    notes.append(f"each alone: {len(types) - len(refused)} folded" + (f", refused {refused}" if refused else ""))
    return f"{'; '.join(notes)}; max abs error vs plain {worst:.3g}"


def archives_to_check(exe, samples: Path, work: Path, counts: Counter):
    """(name, check) for each archive the sweep covers, its plain conversion made just before;
    each archive left out is printed with the reason."""
    flat = work / "flat.onnx"
    for archive in sorted(samples.rglob("*.pt2")):
        stem = str(archive.relative_to(samples))[: -len(".pt2")]
        npz = archive.with_name(archive.name[: -len(".pt2")] + ".io.npz")
        types = module_types(exe, archive) if npz.exists() else None
        reason = "no torch reference (.io.npz)" if not npz.exists() else types_left_out(types)
        if reason is None:
            try:
                convert(exe, archive, flat, [])
            except CheckFailed:
                reason = PLAIN_REFUSED
        if tally(counts, stem, reason):
            yield stem, lambda a=archive, n=npz, t=types: check_archive(exe, a, n, t, flat, work)


def main():
    # The samples hold about 300 such archives: a walk that finds fewer than 250 is broken.
    return sweep_main(__doc__, archives_to_check, 250)


if __name__ == "__main__":
    sys.exit(main())
