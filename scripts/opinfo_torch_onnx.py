#!/usr/bin/env python3
"""torch.onnx on the OpInfo sweep's archives (issue 30; by hand, never CI): every program of a sweep
(scripts/opinfo_sweep.sh's DIR/index.json) exported by torch.onnx.export(ep, dynamo=True) at opset
18, checked and compared with torch's outputs exactly as tests/models/run_opinfo_tests.py compares
pt2onnx's (same tolerances, onnx.checker full check, onnxruntime with one thread). Each program ends
matched, wrong, invalid (the file fails the checker or onnxruntime) or failed (torch.onnx raised or
timed out); an OpInfo takes its worst program's status.

Results are appended to --results (JSON lines, one per program) as they come, so an interrupted run
resumes where it stopped. With --pt2onnx-results (run_opinfo_tests.py --results of the same sweep),
prints the two converters side by side and the OpInfos only one of them converts and matches
(--markdown writes that too).

Usage (the torch venv with the zoo extras, which has onnx and onnxruntime):
    python scripts/opinfo_torch_onnx.py --index /tmp/pt2onnx_opinfo/index.json \\
        --results /tmp/pt2onnx_opinfo/torch_onnx.jsonl --pt2onnx-results /tmp/pt2onnx_opinfo/results.json \\
        [--markdown OUT.md] [--timeout 60] [--ops a,b]
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import signal
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "models"))
from run_opinfo_tests import ORDER, load_arrays, run_ort  # noqa: E402
from run_model_tests import CheckFailed, compare, onnx_checker  # noqa: E402

OPSET = 18
STATUS_ORDER = ["wrong", "invalid", "failed", "matched"]  # an OpInfo's status: its worst program's


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def export_one(ep, path: Path, timeout: int):
    import torch

    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            torch.onnx.export(ep, (), dynamo=True, opset_version=OPSET, verbose=False).save(str(path))
    finally:
        signal.alarm(0)


def check_one(ep, ins, outs, work: Path, timeout: int):
    """(status, detail, max abs error or None) of one program through torch.onnx."""
    path = work / "model.onnx"
    try:
        export_one(ep, path, timeout)
    except Timeout:
        return "failed", f"torch.onnx timed out after {timeout} s", None
    except Exception as e:  # torch.onnx's own refusal or crash, by its message
        text = str(e).strip().splitlines()
        return "failed", f"{type(e).__name__}: {text[0][:200] if text else ''}", None
    try:
        onnx_checker(path)
        names, got = run_ort(path, ins)
    except Exception as e:
        return "invalid", f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200]}", None
    if len(got) < len(outs):
        return "wrong", f"{len(got)} outputs, torch has {len(outs)}", None
    try:
        worst = compare(got[:len(outs)], outs)
    except CheckFailed as e:
        return "wrong", str(e)[:300], None
    return "matched", f"max abs error {worst:.3g}", worst


def run(index_path: Path, results_path: Path, timeout: int, only):
    from torch.export.pt2_archive._package import load_pt2

    index = json.loads(index_path.read_text())
    done = set()
    if results_path.exists():
        done = {json.loads(line)["model"] for line in results_path.read_text().splitlines() if line.strip()}
    with tempfile.TemporaryDirectory() as td, results_path.open("a") as log:
        work = Path(td)
        for archive, entry in sorted(index["archives"].items()):
            models = {m: meta for m, meta in entry["models"].items()
                      if m not in done and (not only or meta["opinfo"] in only)}
            if not models:
                continue
            try:
                with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
                    warnings.simplefilter("ignore")
                    programs = load_pt2(str(index_path.parent / archive)).exported_programs
            except Exception as e:
                programs, why = {}, f"torch.export.load: {type(e).__name__}: {str(e)[:150]}"
            with np.load(index_path.parent / entry["io_file"], allow_pickle=False) as npz:
                for model, meta in models.items():
                    ins, outs, _ = load_arrays(npz, model)
                    if model in programs:
                        status, detail, err = check_one(programs[model], ins, outs, work, timeout)
                    else:
                        status, detail, err = "failed", why if not programs else "not in the archive", None
                    log.write(json.dumps({"model": model, "opinfo": meta["opinfo"], "status": status,
                                          "detail": detail, "err": err}) + "\n")
                    log.flush()
                    print(f"{status:8s} {model}: {detail}", flush=True)


def by_opinfo(statuses):
    """{opinfo: worst status} from (opinfo, status) pairs, in the given order of badness."""
    out = {}
    for opinfo, status, order in statuses:
        if opinfo not in out or order.index(status) < order.index(out[opinfo]):
            out[opinfo] = status
    return out


def report(results_path: Path, ours_path: Path | None, out_md: Path | None):
    rows = [json.loads(line) for line in results_path.read_text().splitlines() if line.strip()]
    theirs = by_opinfo((r["opinfo"], r["status"], STATUS_ORDER) for r in rows)
    programs = collections.Counter(r["status"] for r in rows)
    count = collections.Counter(theirs.values())
    lines = [f"torch.onnx (dynamo=True, opset {OPSET}) on the same archives: {len(theirs)} OpInfos, {len(rows)} programs",
             "", "| | OpInfos | programs |", "|---|---|---|"]
    for status in reversed(STATUS_ORDER):
        lines.append(f"| {status} | {count[status]} | {programs[status]} |")
    if ours_path:
        ours_doc = json.loads(ours_path.read_text())
        ours = by_opinfo((v[0], v[1], ORDER) for v in ours_doc.values())  # [opinfo, status, detail, err, desc]
        both = sorted(set(ours) & set(theirs))
        only_ours = [k for k in both if ours[k] == "matched" and theirs[k] != "matched"]
        only_theirs = [k for k in both if theirs[k] == "matched" and ours[k] != "matched"]
        matched_both = sum(1 for k in both if ours[k] == theirs[k] == "matched")
        lines += ["", f"Of {len(both)} OpInfos both ran: both match {matched_both}; pt2onnx only {len(only_ours)}; "
                      f"torch.onnx only {len(only_theirs)}; pt2onnx {sum(ours[k] == 'matched' for k in both)}, "
                      f"torch.onnx {sum(theirs[k] == 'matched' for k in both)} in all.",
                  "", f"Matched by torch.onnx, not by pt2onnx ({len(only_theirs)}):"]
        lines += [f"- {k} (pt2onnx: {ours[k]})" for k in only_theirs] or ["- none"]
        lines += ["", f"Matched by pt2onnx, not by torch.onnx ({len(only_ours)}): " + ", ".join(
            f"{k} ({theirs[k]})" for k in only_ours)]
    text = "\n".join(lines) + "\n"
    print(text)
    if out_md:
        out_md.write_text(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--results", type=Path, required=True, help="JSON lines, appended (resumes)")
    ap.add_argument("--pt2onnx-results", type=Path, help="run_opinfo_tests.py --results of the same sweep")
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--ops", default="", help="comma-separated OpInfo names (default: all)")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    only = set(filter(None, args.ops.split(",")))
    if not args.report_only:
        run(args.index, args.results, args.timeout, only)
    report(args.results, args.pt2onnx_results, args.markdown)


if __name__ == "__main__":
    main()
