#!/usr/bin/env python3
"""--external-data=archive end to end (run by ctest as the `archive_data` test).

Every sample of samples/MANIFEST.json (all three archive layouts, torch 2.1 to 2.15) is copied
into a scratch folder (`archives/` below the output, so that `location` is a relative path with a
folder) and converted with --external-data=archive. Each must: write the .onnx and no data file;
reference every external initializer at a `location` that names the archive, inside one STORED zip
entry's data (offset and length within it, as python's zipfile reads the archive); pass
`onnx.checker.check_model(full_check=True)`; give torch's outputs in onnxruntime (fp32: rtol 1e-4,
atol 1e-5) at each batch size the sample has; keep BatchNorm and weight Transposes as nodes (the
bytes are the archive's, nothing is derived); and leave the archive's bytes unchanged.

Refusals, each with exit 2, one stderr line naming the cause and `--external-data`, no file
written: a DEFLATE-compressed weight entry, a weight stored as a strided (transposed) view, an
archive outside the output's folder, one with two hard links (onnx's checker refuses those), an
unknown --external-data value. `inspect` says in advance
whether the archive can be referenced. Prints each sample's max abs error vs torch."""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import struct
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_model_tests import (CheckFailed, Converter, Results, compare, load_io, load_samples,  # noqa: E402
                             onnx_checker, rewrite_zip, run_ort)

OPSET = 18


def stored_entries(pt2: Path):
    """(data start, data end, name) of every STORED entry, from the local headers."""
    spans = []
    with open(pt2, "rb") as f, zipfile.ZipFile(pt2) as z:
        for info in z.infolist():
            if info.compress_type != zipfile.ZIP_STORED:
                continue
            f.seek(info.header_offset)
            header = f.read(30)
            name_len, extra_len = struct.unpack("<HH", header[26:30])
            start = info.header_offset + 30 + name_len + extra_len
            spans.append((start, start + info.file_size, info.filename))
    return spans


def external_entries(onnx_path: Path):
    """(initializer, location, offset, length) of every externally stored initializer."""
    import onnx

    model = onnx.load(str(onnx_path), load_external_data=False)
    out = []
    for t in model.graph.initializer:
        if t.data_location != onnx.TensorProto.EXTERNAL:
            continue
        kv = {e.key: e.value for e in t.external_data}
        out.append((t.name, kv.get("location"), int(kv.get("offset", 0)), int(kv.get("length", -1))))
    return model, out


def check_references(onnx_path: Path, pt2: Path, location: str):
    model, refs = external_entries(onnx_path)
    if not refs:
        raise CheckFailed("no initializer references the archive")
    spans = stored_entries(pt2)
    for name, loc, offset, length in refs:
        if loc != location:
            raise CheckFailed(f"initializer {name}: location {loc!r}, expected {location!r}")
        inside = [n for s, e, n in spans if s <= offset and offset + length <= e]
        if not inside:
            raise CheckFailed(f"initializer {name}: bytes [{offset}, {offset + length}) lie in no STORED entry")
    ops = {n.op_type for n in model.graph.node}
    return model, refs, ops


def sha(path: Path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def expect_refusal(conv: Converter, args, out_dir: Path, words):
    """pt2onnx `args` must exit 2 with one stderr line holding every word, leaving out_dir as it was."""
    before = sorted(p.name for p in out_dir.iterdir()) if out_dir.exists() else []
    p = conv.run(args)
    lines = [ln for ln in p.err.splitlines() if ln.strip()]
    if p.returncode != 2:
        raise CheckFailed(f"exit {p.returncode}, expected 2; stderr: {p.err.strip()[:500]}")
    if len(lines) != 1:
        raise CheckFailed(f"{len(lines)} stderr lines, expected one: {p.err.strip()[:500]}")
    missing = [w for w in words if w not in lines[0]]
    if missing:
        raise CheckFailed(f"stderr lacks {missing}: {lines[0]}")
    after = sorted(p.name for p in out_dir.iterdir()) if out_dir.exists() else []
    if after != before:
        raise CheckFailed(f"the output folder changed on failure: {before} -> {after}")
    return lines[0][:200]


def check_sample(res: Results, conv: Converter, sample, work: Path):
    entry = sample.entry
    src = sample.folder / entry["file"]
    npz = sample.folder / entry["io_file"]
    out_dir = work / sample.tag.replace("/", "_")
    pt2 = out_dir / "archives" / src.name
    pt2.parent.mkdir(parents=True)
    shutil.copyfile(src, pt2)
    onnx_path = out_dir / "x.onnx"
    digest = sha(pt2)
    state = {}

    def convert():
        p = conv.convert(pt2, onnx_path, "--opset", str(OPSET), "--external-data=archive")
        stray = sorted(x.name for x in out_dir.iterdir() if x.name not in ("x.onnx", "archives"))
        if stray:
            raise CheckFailed(f"wrote {stray} beside the .onnx; archive mode writes no data file")
        state["p"] = p
        return f"{p.elapsed:.2f} s, .onnx {onnx_path.stat().st_size} bytes; {p.out.strip()}"

    if not res.check(f"{sample.tag} convert --external-data=archive", convert):
        return

    def references():
        _, refs, ops = check_references(onnx_path, pt2, f"archives/{src.name}")
        state["ops"] = ops
        return f"{len(refs)} initializers reference archives/{src.name}"

    res.check(f"{sample.tag} references inside STORED entries", references)
    res.check(f"{sample.tag} onnx.checker full_check", lambda: onnx_checker(onnx_path) or "accepted")

    def nothing_derived():
        # cnn folds its BatchNorms by default; with the archive's bytes they must stay nodes.
        if sample.stem.startswith("cnn.") and "BatchNormalization" not in state.get("ops", set()):
            raise CheckFailed("BatchNormalization was folded, but the archive's bytes cannot hold a folded weight")
        if sha(pt2) != digest:
            raise CheckFailed("the archive changed")
        return "BatchNorm kept" if sample.stem.startswith("cnn.") else "archive unchanged"

    res.check(f"{sample.tag} nothing derived, archive unchanged", nothing_derived)

    sets = [("", "first inputs")] + ([("b2_", "second batch size")] if entry.get("has_second_batch") else [])
    for prefix, what in sets:
        def run(prefix=prefix, what=what):
            ins, outs = load_io(npz, prefix)
            err = compare(run_ort(onnx_path, ins), outs)
            res.max_err[sample.tag] = max(res.max_err.get(sample.tag, 0.0), err)
            return f"max abs error {err:.3g} ({what})"

        res.check(f"{sample.tag} onnxruntime vs torch ({what})", run)


def deflate_weights(src: Path, dst: Path):
    """The archive with every weight entry DEFLATE-compressed (as a re-zip with compression would)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            method = zipfile.ZIP_DEFLATED if "/data/weights/weight_" in info.filename else zipfile.ZIP_STORED
            zout.writestr(zipfile.ZipInfo(info.filename, date_time=info.date_time), data, compress_type=method)


def transpose_view(src: Path, dst: Path, fqn: str):
    """The archive with weight `fqn` (2-D) recorded as a transposed view of its bytes."""
    def edit(name, data):
        if not name.endswith("_weights_config.json"):
            return data
        doc = json.loads(data)
        meta = doc["config"][fqn]["tensor_meta"]
        rows = meta["sizes"][0]["as_int"]
        meta["strides"] = [{"as_int": 1}, {"as_int": rows}]
        return json.dumps(doc).encode()

    rewrite_zip(src, dst, edit)


def check_refusals(res: Results, conv: Converter, samples_dir: Path, work: Path):
    base = work / "refusals"
    base.mkdir()
    mlp = samples_dir / "mlp.default.pt2"

    def case(name, make, args_after, words, inspect_words=None):
        folder = base / name
        folder.mkdir()
        pt2 = folder / "m.pt2"
        make(pt2)

        def refused():
            return expect_refusal(conv, [pt2, "-o", folder / "m.onnx", *args_after], folder, words)

        res.check(f"refusal: {name}", refused)
        if inspect_words is None:
            return

        def inspected():
            p = conv.run(["inspect", pt2])
            if p.returncode != 0:
                raise CheckFailed(f"inspect exit {p.returncode}: {p.err.strip()[:300]}")
            line = next((ln for ln in p.out.splitlines() if "--external-data=archive" in ln), "")
            missing = [w for w in inspect_words if w not in line]
            if missing:
                raise CheckFailed(f"inspect's line lacks {missing}: {line!r}")
            return line.strip()

        res.check(f"inspect says so: {name}", inspected)

        if "--external-data=archive" not in args_after:
            return

        def fallback_works():  # the flag the refusal points to converts the same archive
            p = conv.convert(pt2, folder / "copy.onnx", "--external-data")
            if name.startswith("strided"):  # other numbers than torch's: the weight now reads transposed
                import onnx.numpy_helper
                model = onnx.load(str(folder / "copy.onnx"))
                got = next(onnx.numpy_helper.to_array(t) for t in model.graph.initializer if t.name == "fc1.weight")
                with zipfile.ZipFile(mlp) as z:
                    stored = np.frombuffer(z.read(next(n for n in z.namelist() if n.endswith("weights/weight_0"))),
                                           dtype=np.float32)
                if not np.array_equal(got, stored.reshape(16, 32).T):
                    raise CheckFailed("fc1.weight in the data file is not the transposed view's elements")
                return f"--external-data gathers the strided view; {p.out.strip()}"
            ins, outs = load_io(samples_dir / "mlp.default.io.npz")
            return f"--external-data: max abs error {compare(run_ort(folder / 'copy.onnx', ins), outs):.3g}; {p.out.strip()}"

        res.check(f"fallback --external-data converts: {name}", fallback_works)

    case("DEFLATE weight entries", lambda p: deflate_weights(mlp, p), ["--external-data=archive"],
         ["DEFLATE", "fc1.weight", "--external-data"], ["refused", "DEFLATE"])
    case("strided weight view", lambda p: transpose_view(mlp, p, "fc1.weight"), ["--external-data=archive"],
         ["strided view", "fc1.weight", "--external-data"], ["refused", "strided"])
    case("unknown value", lambda p: shutil.copyfile(mlp, p), ["--external-data=elsewhere"],
         ["elsewhere", "archive"])

    # The archive in a sibling folder of the output: no relative location stays inside the ONNX's tree.
    sibling = base / "outside"
    (sibling / "archive").mkdir(parents=True)
    (sibling / "onnx").mkdir()
    shutil.copyfile(mlp, sibling / "archive" / "m.pt2")
    res.check("refusal: archive outside the output's folder",
              lambda: expect_refusal(conv, [sibling / "archive" / "m.pt2", "-o", sibling / "onnx" / "m.onnx",
                                            "--external-data=archive"], sibling / "onnx",
                                     ["not inside", "--external-data"]))

    linked = base / "hardlinked"
    linked.mkdir()
    shutil.copyfile(mlp, linked / "m.pt2")
    (linked / "second-name.pt2").hardlink_to(linked / "m.pt2")
    res.check("refusal: archive with two hard links",
              lambda: expect_refusal(conv, [linked / "m.pt2", "-o", linked / "m.onnx", "--external-data=archive"],
                                     linked, ["2 hard links", "--external-data"]))

    def inspect_ok():
        p = conv.run(["inspect", mlp])
        line = next((ln for ln in p.out.splitlines() if "--external-data=archive" in ln), "")
        if "every weight can be referenced" not in line:
            raise CheckFailed(f"inspect of an archive that can be referenced says {line!r}")
        return line.strip()

    res.check("inspect: an archive that can be referenced", inspect_ok)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pt2onnx", required=True, help="path of the pt2onnx executable")
    ap.add_argument("--samples", required=True, help="the samples/ folder")
    args = ap.parse_args(argv)
    samples_dir = Path(args.samples)
    conv = Converter(args.pt2onnx)
    res = Results()
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pt2onnx-archive-data-") as tmp:
        work = Path(tmp)
        samples = {tag: s for tag, s in load_samples([samples_dir]).items() if s.folder == samples_dir}
        for tag in sorted(samples):
            check_sample(res, conv, samples[tag], work)
        check_refusals(res, conv, samples_dir, work)
    for tag, err in sorted(res.max_err.items()):
        print(f"  {tag}: max abs error {err:.3g}")
    print(f"archive_data: {res.summary()} in {time.monotonic() - t0:.1f} s")
    return 1 if res.failed or res.passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
