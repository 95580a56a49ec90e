#!/usr/bin/env python3
"""End-to-end tests of the pt2onnx executable over samples/ (run by ctest as the `models` test).

Each --samples folder is searched for MANIFEST.json files: its own and those in folders below it
(samples/ops/MANIFEST.json: the op samples). For every sample: convert it (opset 18), run
onnx.checker (full_check), check the graph input names against the ExportedProgram's user input
names, run onnxruntime on the recorded inputs and compare with torch's eager outputs (rtol 1e-4,
atol 1e-5; dynamic samples also at their second input set). Samples of a manifest whose "checks"
is "light" (the op samples) stop there; the others are converted again with --external-data, and
at opset 17 and at the largest opset pt2onnx accepts. One main sample is converted twice to check
the output is byte-identical. The max abs error of every sample is printed at the end.
Malformed archives made from a real sample (truncated zip, missing or invalid model JSON, a short
weight blob, an unknown op) and an unwritable output path must each fail with a non-zero exit,
exactly one stderr line naming what is at fault, and no file left behind.

Needs only numpy, onnx and onnxruntime (the test venv from scripts/install_deps.sh); never torch.
Prints one line per check and a summary `N passed, M failed[, K skipped]`; exits 1 on failure.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import zipfile
from pathlib import Path

import numpy as np

RTOL = 1e-4
ATOL = 1e-5
MAIN_OPSET = 18
TIMEOUT_S = 300
DETERMINISM_SAMPLE = "decoder.core"  # the largest graph; falls back to the first sample


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.max_err = {}  # sample -> worst max abs error over its passing comparisons

    def ok(self, name, detail=""):
        self.passed += 1
        print(f"PASS {name}" + (f": {detail}" if detail else ""), flush=True)

    def fail(self, name, detail):
        self.failed += 1
        detail = " | ".join(ln.rstrip() for ln in str(detail).strip().splitlines() if ln.strip())
        print(f"FAIL {name}: {detail}", flush=True)

    def skip(self, name, reason):
        self.skipped += 1
        print(f"SKIP {name}: {reason}", flush=True)

    def check(self, name, fn):
        """Runs fn(); it returns a detail string (pass) or raises (fail). Returns fn's success."""
        try:
            detail = fn()
        except CheckFailed as e:
            self.fail(name, e)
            return False
        except Exception as e:  # a harness or library error is a failure of this check, not a crash
            self.fail(name, f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}")
            return False
        self.ok(name, detail or "")
        return True

    def summary(self):
        s = f"{self.passed} passed, {self.failed} failed"
        if self.skipped:
            s += f", {self.skipped} skipped"
        return s


class CheckFailed(Exception):
    pass


class KnownFailureResults(Results):
    """Collects the checks of a sample listed in a KNOWN_FAILURES.json: its failures print as
    XFAIL and count once, as a skip with the listed reason, in the caller's results."""

    def ok(self, name, detail=""):
        self.passed += 1
        print(f"pass {name} (known-failure sample)" + (f": {detail}" if detail else ""), flush=True)

    def fail(self, name, detail):
        self.failed += 1
        detail = " | ".join(ln.rstrip() for ln in str(detail).strip().splitlines() if ln.strip())
        print(f"XFAIL {name}: {detail}", flush=True)


def load_known_failures(roots):
    """tag -> reason from KNOWN_FAILURES.json beside each manifest (hand-written, so regenerating
    samples keeps it). A listed sample that passes again is a failure: the list must stay true."""
    known = {}
    for root in roots:
        root = Path(root)
        for path in sorted(root.rglob("KNOWN_FAILURES.json")):
            rel = path.parent.relative_to(root).as_posix()
            prefix = "" if rel == "." else rel + "/"
            for stem, reason in json.loads(path.read_text()).items():
                known[prefix + stem] = reason
    return known


# ----------------------------------------------------------------------------------------------
# Running the converter
# ----------------------------------------------------------------------------------------------


class Converter:
    def __init__(self, exe: str):
        self.exe = exe

    def run(self, args, timeout=TIMEOUT_S):
        t0 = time.monotonic()
        try:
            p = subprocess.run([self.exe, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise CheckFailed(f"pt2onnx {' '.join(map(str, args))} timed out after {timeout} s")
        p.elapsed = time.monotonic() - t0
        p.out = p.stdout.decode("utf-8", "replace")
        p.err = p.stderr.decode("utf-8", "replace")
        return p

    def convert(self, pt2, onnx_path, *extra):
        p = self.run([pt2, "-o", onnx_path, *extra])
        if p.returncode != 0:
            raise CheckFailed(f"exit {_rc_text(p.returncode)}; stderr: {p.err.strip()[:2000]}")
        if not Path(onnx_path).is_file():
            raise CheckFailed(f"exit 0 but {onnx_path} was not written; stdout: {p.out.strip()[:500]}")
        return p

    def opset_range(self):
        """(min, max) opset from `pt2onnx --help` ("(17 to 23)"), or None if it says nothing."""
        p = self.run(["--help"], timeout=60)
        m = re.search(r"opset[^\n]*?\(\s*(\d+)\s*(?:to|-|\.\.)\s*(\d+)\s*\)", p.out + p.err, re.IGNORECASE)
        return (int(m.group(1)), int(m.group(2))) if m else None


def _rc_text(rc):
    if rc < 0:
        return f"{rc} (killed by signal {-rc}: crash)"
    return str(rc)


# ----------------------------------------------------------------------------------------------
# Checking a converted model
# ----------------------------------------------------------------------------------------------


def load_io(npz_path: Path, prefix=""):
    with np.load(npz_path, allow_pickle=False) as z:
        ins, outs = [], []
        i = 0
        while f"{prefix}input_{i}" in z.files:
            ins.append(z[f"{prefix}input_{i}"])
            i += 1
        i = 0
        while f"{prefix}output_{i}" in z.files:
            outs.append(z[f"{prefix}output_{i}"])
            i += 1
    return ins, outs


def compare(actual, expected, rtol=RTOL, atol=ATOL):
    """assert_allclose's rule (|a - e| <= atol + rtol * |e|, NaNs must match), plus exact shape and
    dtype. Returns the max abs error; raises CheckFailed naming every output that differs."""
    if len(actual) != len(expected):
        raise CheckFailed(f"{len(actual)} outputs, expected {len(expected)}")
    worst = 0.0
    problems = []
    for i, (a, e) in enumerate(zip(actual, expected)):
        a = np.asarray(a)
        if a.shape != e.shape:
            problems.append(f"output {i}: shape {a.shape}, expected {e.shape}")
            continue
        if a.dtype != e.dtype:
            problems.append(f"output {i}: dtype {a.dtype}, expected {e.dtype}")
            continue
        if e.dtype == np.bool_ or np.issubdtype(e.dtype, np.integer):
            bad = a != e
            if bad.any():
                idx = tuple(int(v) for v in np.argwhere(bad)[0])
                problems.append(f"output {i}: {int(bad.sum())} of {e.size} elements differ, "
                                f"first at {idx}: {a[idx].item()} vs {e[idx].item()}")
            continue
        a64, e64 = a.astype(np.float64), e.astype(np.float64)
        nan_a, nan_e = np.isnan(a64), np.isnan(e64)
        if (nan_a != nan_e).any():
            problems.append(f"output {i}: NaN positions differ ({int(nan_a.sum())} vs {int(nan_e.sum())} NaNs)")
            continue
        fin = ~nan_e
        inf_mismatch = (np.isinf(e64) | np.isinf(a64)) & fin & (a64 != e64)
        if inf_mismatch.any():
            problems.append(f"output {i}: infinities differ at {int(inf_mismatch.sum())} elements")
            continue
        ok_mask = np.isfinite(e64) & np.isfinite(a64)
        with np.errstate(invalid="ignore"):  # inf - inf where both are the same infinity
            err = np.where(ok_mask, np.abs(a64 - e64), 0.0)
        max_err = float(err.max()) if err.size else 0.0
        worst = max(worst, max_err)
        tol = atol + rtol * np.abs(np.where(ok_mask, e64, 0.0))
        bad = err > tol
        if bad.any():
            idx = tuple(int(v) for v in np.argwhere(bad)[0])
            problems.append(f"output {i}: {int(bad.sum())} of {e.size} elements beyond rtol {rtol} atol {atol}; "
                            f"max abs error {max_err:.3g}; first at {idx}: {float(a[idx])!r} vs {float(e[idx])!r}")
    if problems:
        raise CheckFailed(f"{len(problems)} of {len(expected)} outputs differ: " + "; ".join(problems))
    return worst


def run_ort(onnx_path: Path, inputs, optimize=True):
    """onnxruntime's CPU outputs; optimize=False turns its graph optimizations off (diagnosis)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    if not optimize:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(str(onnx_path), sess_options=so, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    if len(names) != len(inputs):
        raise CheckFailed(f"onnx model has {len(names)} inputs {names}, the sample has {len(inputs)}")
    return sess.run(None, dict(zip(names, inputs)))


def ort_optimizer_note(onnx_path: Path, inputs, expected):
    """After a mismatch: whether onnxruntime agrees with torch once its graph optimizations are off,
    which points at an onnxruntime optimizer defect rather than at the converted model."""
    try:
        err = compare(run_ort(onnx_path, inputs, optimize=False), expected)
    except Exception:
        return ""
    return (f" [with onnxruntime graph optimizations disabled it matches (max abs error {err:.3g}): "
            f"an onnxruntime optimizer defect on this model, not a wrong ONNX model]")


def onnx_checker(onnx_path: Path):
    import onnx

    onnx.checker.check_model(str(onnx_path), full_check=True)


def onnx_summary(onnx_path: Path):
    """Graph input names, default-domain opset, and initializer storage, without loading weights."""
    import onnx

    m = onnx.load(str(onnx_path), load_external_data=False)
    init_names = {t.name for t in m.graph.initializer}
    inputs = [i.name for i in m.graph.input if i.name not in init_names]
    opset = next((o.version for o in m.opset_import if o.domain in ("", "ai.onnx")), None)
    external = [t for t in m.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    locations = sorted({kv.value for t in external for kv in t.external_data if kv.key == "location"})
    return {"inputs": inputs, "outputs": [o.name for o in m.graph.output], "opset": opset,
            "n_init": len(m.graph.initializer), "n_external": len(external), "locations": locations,
            "nodes": len(m.graph.node)}


# ----------------------------------------------------------------------------------------------
# Per-sample checks
# ----------------------------------------------------------------------------------------------


def check_sample(res: Results, conv: Converter, samples_dir: Path, stem: str, entry: dict, work: Path,
                 opsets_extra, light=False):
    """All checks of one sample; light: only the conversion at MAIN_OPSET (op samples)."""
    pt2 = samples_dir / entry["file"]
    npz = samples_dir / entry["io_file"]
    tag = stem

    def integrity():
        if not pt2.is_file():
            raise CheckFailed(f"{pt2} missing")
        if not npz.is_file():
            raise CheckFailed(f"{npz} missing")
        digest = hashlib.sha256(pt2.read_bytes()).hexdigest()
        if entry.get("sha256") and digest != entry["sha256"]:
            raise CheckFailed(f"sha256 {digest} differs from MANIFEST.json ({entry['sha256']}); regenerate samples")
        return f"{entry['file']} ({pt2.stat().st_size} bytes)"

    if not res.check(f"{tag}: sample files", integrity):
        return

    ins, outs = load_io(npz)
    ins2, outs2 = load_io(npz, "b2_") if entry.get("has_second_batch") else ([], [])
    if entry.get("has_second_batch") and not ins2:
        res.fail(f"{tag}: second batch", f"{npz.name} has no b2_input_* arrays")

    def full_check(label, onnx_path, extra_args, expect_external=False, opset=MAIN_OPSET, check_names=True):
        """Convert, check, compare. Each step is its own check line; later steps skip on failure."""
        name = f"{tag} [{label}]"
        state = {}

        def do_convert():
            onnx_path.parent.mkdir(parents=True, exist_ok=True)
            # A sample that needs translation rules names its config (samples/hiera/custom_op.*).
            config = ["--config", str(samples_dir / entry["config"])] if entry.get("config") else []
            p = conv.convert(pt2, onnx_path, "--opset", str(opset), *config, *extra_args)
            state["p"] = p
            return f"{p.elapsed:.2f} s, {onnx_path.stat().st_size} bytes"

        if not res.check(f"{name} convert", do_convert):
            return False

        def do_checker():
            onnx_checker(onnx_path)
            s = onnx_summary(onnx_path)
            state["summary"] = s
            if s["opset"] != opset:
                raise CheckFailed(f"model opset_import says {s['opset']}, asked for {opset}")
            if expect_external:
                if s["n_external"] == 0:
                    raise CheckFailed("--external-data given but no initializer is stored externally")
                for loc in s["locations"]:
                    if not (onnx_path.parent / loc).is_file():
                        raise CheckFailed(f"external data file {loc!r} named in the model is missing")
            elif s["n_external"]:
                raise CheckFailed(f"{s['n_external']} initializers are external without --external-data")
            ext = f", external data in {s['locations']}" if s["locations"] else ""
            return f"opset {s['opset']}, {s['nodes']} nodes, {s['n_init']} initializers{ext}"

        if not res.check(f"{name} onnx.checker full_check", do_checker):
            return False

        if check_names:
            def do_names():
                got = state["summary"]["inputs"]
                want = entry["user_inputs"]
                if got != want:
                    raise CheckFailed(f"graph inputs {got}, expected the ExportedProgram's user inputs {want}")
                return f"{got}"

            res.check(f"{name} input names", do_names)

        def do_run(i_, o_, what):
            def f():
                try:
                    err = compare(run_ort(onnx_path, i_), o_)
                except CheckFailed as e:
                    raise CheckFailed(f"{e}{ort_optimizer_note(onnx_path, i_, o_)}")
                res.max_err[tag] = max(res.max_err.get(tag, 0.0), err)
                shapes = ", ".join("x".join(map(str, a.shape)) for a in i_)
                return f"max abs error {err:.3g} ({what}, inputs {shapes})"
            return f

        ok = res.check(f"{name} onnxruntime vs torch", do_run(ins, outs, "first inputs"))
        if ins2:
            ok &= res.check(f"{name} onnxruntime vs torch, second batch", do_run(ins2, outs2, "second batch size"))
        return ok

    # An op sample that needs a newer opset (torch.onnx.ops' Attention is opset 23) says so.
    main_opset = max(MAIN_OPSET, entry.get("min_opset", MAIN_OPSET))
    full_check(f"opset {main_opset}", work / stem / "main" / "x.onnx", [], opset=main_opset)
    if light:
        # A light manifest may name other opsets its samples need checking at (control flow: 23).
        for op in entry.get("extra_opsets", []):
            full_check(f"opset {op}", work / stem / f"opset{op}" / "x.onnx", [], opset=op, check_names=False)
        return
    full_check("external data", work / stem / "ext" / "x.onnx", ["--external-data"], expect_external=True)
    for op in opsets_extra:
        full_check(f"opset {op}", work / stem / f"opset{op}" / "x.onnx", [], opset=op, check_names=False)


def check_determinism(res: Results, conv: Converter, samples_dir: Path, stem: str, entry: dict, work: Path):
    pt2 = samples_dir / entry["file"]

    def f():
        digests = []
        for run in ("a", "b"):
            d = work / f"determinism_{run}"
            d.mkdir(parents=True, exist_ok=True)
            conv.convert(pt2, d / "x.onnx", "--opset", str(max(MAIN_OPSET, entry.get("min_opset", MAIN_OPSET))))
            digests.append(hashlib.sha256((d / "x.onnx").read_bytes()).hexdigest())
        if digests[0] != digests[1]:
            raise CheckFailed(f"two conversions differ: {digests[0][:16]} vs {digests[1][:16]}")
        return f"sha256 {digests[0][:16]}"

    res.check(f"{stem}: converting twice gives byte-identical .onnx", f)


# ----------------------------------------------------------------------------------------------
# Malformed inputs
# ----------------------------------------------------------------------------------------------


def rewrite_zip(src: Path, dst: Path, edit):
    """Copies the zip, passing each (name, data) through edit(name, data) -> data or None (drop).
    Entries stay stored (uncompressed) with their data 64-byte aligned, as torch writes them, so
    that only the intended defect differs."""
    with zipfile.ZipFile(src) as zin:
        items = [(i, zin.read(i)) for i in zin.infolist()]
    with zipfile.ZipFile(dst, "w", compression=zipfile.ZIP_STORED) as zout:
        for info, data in items:
            new = edit(info.filename, data)
            if new is None:
                continue
            zi = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            zi.compress_type = zipfile.ZIP_STORED
            name_len = len(info.filename.encode("utf-8"))
            offset = zout.fp.tell()
            header = 30 + name_len + 4  # local header + name + our padding extra field header
            pad = (-(offset + header)) % 64
            zi.extra = b"FB" + pad.to_bytes(2, "little") + b"Z" * pad
            zout.writestr(zi, new)


def find_entry(names, *suffixes):
    for s in suffixes:
        for n in names:
            if n == s or n.endswith("/" + s):
                return n
    return None


def make_malformed(src: Path, work: Path):
    """Returns [(case, path_to_bad_pt2, words)]: the message must contain one of words."""
    with zipfile.ZipFile(src) as z:
        names = z.namelist()
        model_json = find_entry(names, "models/model.json", "serialized_exported_program.json")
        doc = json.loads(z.read(model_json))
        cfg_name = find_entry(names, "data/weights/model_weights_config.json")
        cfg = json.loads(z.read(cfg_name)) if cfg_name else None
    cases = []

    data = src.read_bytes()
    p = work / "truncated.pt2"
    p.write_bytes(data[: len(data) // 2])
    cases.append(("truncated zip", p, ["truncated.pt2"]))

    p = work / "no_model_json.pt2"
    rewrite_zip(src, p, lambda n, d: None if n == model_json else d)
    cases.append(("zip without the model JSON", p, [model_json, model_json.rsplit("/", 1)[-1], "models/"]))

    p = work / "bad_json.pt2"
    rewrite_zip(src, p, lambda n, d: b'{"graph_module": {"graph": [1, 2,' if n == model_json else d)
    cases.append(("invalid model JSON", p, [model_json.rsplit("/", 1)[-1]]))

    if cfg:
        # The first weight in the config; cut its blob to half of what its tensor_meta says.
        weight_file = sorted(v["path_name"] for v in cfg["config"].values() if not v.get("use_pickle"))[0]
        blob = find_entry(names, "data/weights/" + weight_file)
        p = work / "short_weight.pt2"
        rewrite_zip(src, p, lambda n, d: d[: len(d) // 2] if n == blob else d)
        cases.append(("weight blob shorter than its config", p, [weight_file]))
    else:
        cases.append(("weight blob shorter than its config", None, f"{src.name} has no model_weights_config.json"))

    nodes = doc["graph_module"]["graph"]["nodes"]
    victim = next(n for n in nodes if n["target"].startswith("torch.ops.aten."))
    victim["target"] = "torch.ops.aten.not_a_real_op.default"
    bad = json.dumps(doc).encode()
    p = work / "unknown_op.pt2"
    rewrite_zip(src, p, lambda n, d: bad if n == model_json else d)
    cases.append(("unknown op", p, ["not_a_real_op"]))
    return cases


def check_failure(res: Results, conv: Converter, case: str, pt2, words, out_dir: Path, output=None):
    name = f"malformed: {case}"
    if pt2 is None:
        res.skip(name, words)
        return

    def f():
        out_dir.mkdir(parents=True, exist_ok=True)
        target = output or (out_dir / "x.onnx")
        p = conv.run([pt2, "-o", target, "--opset", str(MAIN_OPSET)])
        problems = []
        if p.returncode == 0:
            problems.append("exit 0")
        elif p.returncode < 0:
            problems.append(f"exit {_rc_text(p.returncode)}")
        lines = [ln for ln in p.err.splitlines() if ln.strip()]
        if len(lines) != 1:
            problems.append(f"{len(lines)} stderr lines, expected exactly 1")
        if not any(w.lower() in p.err.lower() for w in words):
            problems.append(f"stderr names none of {words}")
        left = sorted(x.name for x in out_dir.iterdir()) if out_dir.exists() else []
        if left:
            problems.append(f"left files behind: {left}")
        if output is not None and Path(output).exists():
            problems.append(f"{output} exists")
        if problems:
            raise CheckFailed("; ".join(problems) + f"; stderr: {p.err.strip()[:500]!r}")
        return f"exit {p.returncode}: {lines[0].strip()[:200]}"

    res.check(name, f)


# ----------------------------------------------------------------------------------------------


def pick_malformed_source(samples):
    """A torch 2.15 (raw-weights layout) sample with weights: mlp.default if present."""
    if "mlp.default" in samples:
        return "mlp.default"
    for st, e in samples.items():
        blobs = [a for a in e.get("archive_entries", []) if "/data/weights/weight_" in a.get("name", "")]
        if e.get("weights_config_entry") and blobs:
            return st
    return next(iter(samples))


class Sample:
    """One manifest entry: tag (stem, prefixed with the manifest's folder relative to --samples,
    e.g. ops/arith.core), the folder holding its files, and whether it gets the light checks."""

    def __init__(self, tag, stem, folder: Path, entry: dict, light: bool):
        self.tag, self.stem, self.folder, self.entry, self.light = tag, stem, folder, entry, light


def load_samples(roots):
    """Samples of every MANIFEST.json in each root folder and below it, the root's own first.
    Raises CheckFailed if a root has no manifest or one cannot be read."""
    samples = {}
    seen = set()
    for root in roots:
        root = Path(root)
        if not (root / "MANIFEST.json").is_file():
            raise CheckFailed(f"cannot read {root / 'MANIFEST.json'}: no such file")
        below = sorted(p for p in root.rglob("MANIFEST.json") if p.parent != root)
        for path in [root / "MANIFEST.json", *below]:
            if path.resolve() in seen:  # --samples samples --samples samples/ops: read once
                continue
            seen.add(path.resolve())
            try:
                manifest = json.loads(path.read_text())
                entries = manifest["samples"]
            except Exception as e:
                raise CheckFailed(f"cannot read {path}: {e}")
            rel = path.parent.relative_to(root).as_posix()
            prefix = "" if rel == "." else rel + "/"
            light = manifest.get("checks") == "light"
            for stem, entry in entries.items():
                tag = prefix + stem
                if tag in samples:
                    raise CheckFailed(f"sample {tag} is in two manifests ({samples[tag].folder} and {path.parent})")
                entry = dict(entry, extra_opsets=manifest.get("extra_opsets", [])) if light else entry
                samples[tag] = Sample(tag, stem, path.parent, entry, light)
    return samples


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pt2onnx", required=True, help="path of the pt2onnx executable")
    ap.add_argument("--samples", required=True, action="append",
                    help="folder with MANIFEST.json and the samples; manifests in folders below it "
                         "(samples/ops) are read too; may be given more than once")
    ap.add_argument("--only", default="", help="comma-separated sample tags to check, e.g. mlp.core,ops/arith.core "
                                               "(default: all)")
    ap.add_argument("--keep", action="store_true", help="keep the temp folder and print its path")
    args = ap.parse_args(argv)

    res = Results()
    exe = Path(args.pt2onnx)
    t_start = time.monotonic()
    try:
        samples = load_samples(args.samples)
    except CheckFailed as e:
        res.fail("manifest", e)
        print(res.summary())
        return 1
    all_samples = dict(samples)
    try:
        known = load_known_failures(args.samples)
    except Exception as e:
        res.fail("KNOWN_FAILURES.json", f"{type(e).__name__}: {e}")
        print(res.summary())
        return 1
    unknown_known = sorted(set(known) - set(samples))
    if unknown_known:
        res.fail("KNOWN_FAILURES.json", f"names samples that do not exist: {unknown_known}")
    if not (exe.is_file() and os.access(exe, os.X_OK)):
        res.fail("pt2onnx executable", f"{exe} is not an executable file")
        print(res.summary())
        return 1
    conv = Converter(str(exe.resolve()))
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if w not in samples]
        if unknown:
            res.fail("--only", f"no such samples {unknown}; have {sorted(samples)}")
        samples = {k: v for k, v in samples.items() if k in wanted}
    n_light = sum(s.light for s in samples.values())

    rng = None
    try:
        rng = conv.opset_range()
    except CheckFailed as e:
        print(f"note: pt2onnx --help failed ({e}); using opsets 17 and 21")
    if rng:
        extra = sorted({rng[0], rng[1]} - {MAIN_OPSET}) if rng[0] <= MAIN_OPSET <= rng[1] else [rng[0], rng[1]]
        print(f"pt2onnx --help: opsets {rng[0]} to {rng[1]}; testing {MAIN_OPSET} and {extra}", flush=True)
    else:
        extra = [17, 21]
        print(f"pt2onnx --help names no opset range; testing {MAIN_OPSET} and {extra}", flush=True)
    print(f"{len(samples) - n_light} samples with all checks, {n_light} with the light ones (opset {MAIN_OPSET} only)",
          flush=True)

    work = Path(tempfile.mkdtemp(prefix="pt2onnx_models_"))
    try:
        for s in samples.values():
            if s.tag in known:
                sub = KnownFailureResults()
                check_sample(sub, conv, s.folder, s.tag, s.entry, work / "samples", extra, light=s.light)
                if sub.failed:
                    res.skip(s.tag, f"known failure: {known[s.tag]}")
                else:
                    res.fail(s.tag, "listed in KNOWN_FAILURES.json but passes now: remove it from the list")
                continue
            check_sample(res, conv, s.folder, s.tag, s.entry, work / "samples", extra, light=s.light)

        if samples:
            full = [t for t, s in samples.items() if not s.light] or list(samples)
            det = DETERMINISM_SAMPLE if DETERMINISM_SAMPLE in full else full[0]
            check_determinism(res, conv, samples[det].folder, det, samples[det].entry, work / "det")

        main_samples = {t: s for t, s in all_samples.items() if not s.light} or all_samples
        src_sample = main_samples[pick_malformed_source({t: s.entry for t, s in main_samples.items()})]
        src = src_sample.folder / src_sample.entry["file"]
        bad_dir = work / "malformed"
        bad_dir.mkdir()
        try:
            cases = make_malformed(src, bad_dir)
        except Exception as e:
            res.fail("malformed: building the bad archives", f"{type(e).__name__}: {e}")
            cases = []
        for i, (case, path, words) in enumerate(cases):
            check_failure(res, conv, f"{case} (from {src.name})", path, words, work / f"bad_out{i}")
        unwritable = Path("/nonexistent_dir") / "x.onnx"
        if unwritable.parent.exists():
            res.skip("malformed: unwritable output path", f"{unwritable.parent} exists on this machine")
        else:
            check_failure(res, conv, "unwritable output path", src, ["nonexistent_dir"],
                          work / "bad_out_unwritable", output=unwritable)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    if samples:
        print("max abs error per sample (over its passing comparisons):")
        for tag in samples:
            print(f"  {tag:34s} {res.max_err[tag]:.3g}" if tag in res.max_err else f"  {tag:34s} - (none passed)")
        if res.max_err:
            worst = max(res.max_err, key=res.max_err.get)
            print(f"worst max abs error: {worst} {res.max_err[worst]:.3g}")
    print(f"took {time.monotonic() - t_start:.1f} s", flush=True)
    print(res.summary(), flush=True)
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
