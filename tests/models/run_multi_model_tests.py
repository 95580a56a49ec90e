#!/usr/bin/env python3
"""--all-models end to end (run by ctest as the `multi_model` test).

samples/multi/prefill_decode.pt2 holds two programs (prefill, decode) saved by torch's package
API, sharing an embedding, two layers, a norm and the LM head (torch writes those weights twice,
once per program). Converted in one run with --all-models:

- `--external-data`: `x.prefill.onnx` and `x.decode.onnx` and one `x.onnx.data`; both models
  reference that file, every shared weight at the same offset in both, no two regions of the file
  hold the same bytes, and the file is smaller than the two data files of separate `--model`
  conversions together (sizes printed);
- `--external-data=archive`: both reference the archive, the shared weights at one entry;
- embedded: two standalone models.

Each ONNX passes onnx.checker (full check) and gives torch's outputs in onnxruntime (fp32: rtol
1e-4, atol 1e-5). `--list-outputs` names the three files; `--model` with `--all-models` is exit 2."""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_model_tests import CheckFailed, Converter, Results, compare, onnx_checker, run_ort  # noqa: E402


def load_model_io(npz: Path, model: str):
    with np.load(npz) as z:
        ins = [z[f"{model}_input_{i}"] for i in range(8) if f"{model}_input_{i}" in z.files]
        outs = [z[f"{model}_output_{i}"] for i in range(8) if f"{model}_output_{i}" in z.files]
    return ins, outs


def external_refs(onnx_path: Path):
    """{initializer: (location, offset, length)} of the externally stored initializers."""
    import onnx

    model = onnx.load(str(onnx_path), load_external_data=False)
    refs = {}
    for t in model.graph.initializer:
        if t.data_location == onnx.TensorProto.EXTERNAL:
            kv = {e.key: e.value for e in t.external_data}
            refs[t.name] = (kv["location"], int(kv.get("offset", 0)), int(kv["length"]))
    return refs


def convert_all(conv: Converter, pt2: Path, output: Path, *extra):
    """pt2onnx --all-models; the output names no file itself (each model gets its own)."""
    p = conv.run([pt2, "-o", output, "--all-models", *extra])
    if p.returncode != 0:
        raise CheckFailed(f"exit {p.returncode}; stderr: {p.err.strip()[:1000]}")
    return p


def check_models(res: Results, label: str, onnx_paths: dict, npz: Path):
    for model, path in onnx_paths.items():
        res.check(f"{label}: {model} onnx.checker full_check", lambda path=path: onnx_checker(path) or "accepted")

        def run(model=model, path=path):
            ins, outs = load_model_io(npz, model)
            err = compare(run_ort(path, ins), outs)
            res.max_err[f"{label}: {model}"] = err
            return f"max abs error {err:.3g}"

        res.check(f"{label}: {model} onnxruntime vs torch", run)


def shared_once(refs_by_model: dict, shared: list, location: str):
    """Every shared weight at one region in every model, all of them at `location`."""
    for model, refs in refs_by_model.items():
        wrong = {n: r[0] for n, r in refs.items() if r[0] != location}
        if wrong:
            raise CheckFailed(f"{model}: initializers not located at {location}: {wrong}")
    names = [n for n in shared if all(n in refs for refs in refs_by_model.values())]
    if not names:
        raise CheckFailed(f"no shared weight is stored externally in every model (shared: {shared})")
    for name in names:
        regions = {refs[name][1:] for refs in refs_by_model.values()}
        if len(regions) != 1:
            raise CheckFailed(f"shared weight {name} is at {sorted(regions)} in the models, not at one region")
    return names


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pt2onnx", required=True, help="path of the pt2onnx executable")
    ap.add_argument("--samples", required=True, help="the samples/ folder")
    args = ap.parse_args(argv)
    folder = Path(args.samples) / "multi"
    sample = json.loads((folder / "multi.json").read_text())["samples"]["prefill_decode"]
    src, npz, models = folder / sample["file"], folder / sample["io_file"], sample["models"]
    shared = sample["shared_weights"]
    conv = Converter(args.pt2onnx)
    res = Results()
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pt2onnx-multi-") as tmp:
        work = Path(tmp)

        def integrity():
            digest = hashlib.sha256(src.read_bytes()).hexdigest()
            if digest != sample["sha256"]:
                raise CheckFailed(f"sha256 {digest} differs from multi.json; regenerate samples/multi")
            return f"{src.name}: models {models}, {len(shared)} shared weights"

        if not res.check("sample", integrity):
            return 1

        # One shared data file.
        out = work / "file"
        out.mkdir()
        paths = {m: out / f"x.{m}.onnx" for m in models}

        def listed():
            p = conv.run([src, "-o", out / "x.onnx", "--all-models", "--external-data", "--list-outputs"])
            got = sorted(Path(line).name for line in p.out.splitlines() if line)
            want = sorted([f"x.{m}.onnx" for m in models] + ["x.onnx.data"])
            if p.returncode != 0 or got != want:
                raise CheckFailed(f"exit {p.returncode}, listed {got}, expected {want}; {p.err.strip()[:300]}")
            if list(out.iterdir()):
                raise CheckFailed("--list-outputs wrote files")
            return ", ".join(got)

        res.check("--all-models --list-outputs", listed)

        def convert_shared():
            p = convert_all(conv, src, out / "x.onnx", "--external-data")
            files = sorted(f.name for f in out.iterdir())
            want = sorted([f"x.{m}.onnx" for m in models] + ["x.onnx.data"])
            if files != want:
                raise CheckFailed(f"wrote {files}, expected {want}")
            return p.out.strip().replace("\n", "; ")

        if res.check("--all-models --external-data convert", convert_shared):
            check_models(res, "shared data file", paths, npz)
            refs = {m: external_refs(paths[m]) for m in models}
            res.check("shared data file: each shared weight at one region",
                      lambda: f"{len(shared_once(refs, shared, 'x.onnx.data'))} shared weights, each once")

            def no_duplicate_bytes():
                data = (out / "x.onnx.data").read_bytes()
                regions = {r[1:] for rs in refs.values() for r in rs.values()}
                digests = {}
                for offset, length in sorted(regions):
                    digest = hashlib.sha256(data[offset:offset + length]).hexdigest()
                    if digest in digests:
                        raise CheckFailed(f"regions {digests[digest]} and {(offset, length)} hold the same bytes")
                    digests[digest] = (offset, length)
                return f"{len(regions)} regions, all distinct, {len(data)} bytes"

            res.check("shared data file: no weight stored twice", no_duplicate_bytes)

            def smaller_than_separate():
                separate = 0
                for m in models:
                    one = work / f"separate-{m}"
                    one.mkdir()
                    conv.convert(src, one / f"{m}.onnx", "--model", m, "--external-data")
                    separate += (one / f"{m}.onnx.data").stat().st_size
                shared_size = (out / "x.onnx.data").stat().st_size
                if shared_size >= separate:
                    raise CheckFailed(f"shared file {shared_size} bytes, separate conversions {separate}")
                return (f"one shared file {shared_size} bytes vs {separate} bytes for separate conversions "
                        f"({shared_size / separate:.2f}x)")

            res.check("shared data file vs separate --model conversions", smaller_than_separate)

        # The archive itself.
        arch = work / "archive"
        arch.mkdir()
        pt2 = arch / src.name
        shutil.copyfile(src, pt2)
        apaths = {m: arch / f"x.{m}.onnx" for m in models}
        if res.check("--all-models --external-data=archive convert",
                     lambda: convert_all(conv, pt2, arch / "x.onnx", "--external-data=archive").out.strip()
                     .replace("\n", "; ")):
            check_models(res, "archive", apaths, npz)
            arefs = {m: external_refs(apaths[m]) for m in models}
            res.check("archive: each shared weight at one entry",
                      lambda: f"{len(shared_once(arefs, shared, src.name))} shared weights referenced once")

        # Embedded: two standalone models.
        emb = work / "embedded"
        emb.mkdir()
        if res.check("--all-models embedded convert",
                     lambda: convert_all(conv, src, emb / "x.onnx").out.strip().replace("\n", "; ")):
            check_models(res, "embedded", {m: emb / f"x.{m}.onnx" for m in models}, npz)

        def refused():
            p = conv.run([src, "-o", work / "r.onnx", "--all-models", "--model", models[0]])
            if p.returncode != 2 or len(p.err.strip().splitlines()) != 1:
                raise CheckFailed(f"exit {p.returncode}, stderr {p.err.strip()[:300]!r}")
            return p.err.strip()

        res.check("--all-models with --model refused", refused)
    for tag, err in sorted(res.max_err.items()):
        print(f"  {tag}: max abs error {err:.3g}")
    print(f"multi_model: {res.summary()} in {time.monotonic() - t0:.1f} s")
    return 1 if res.failed or res.passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
