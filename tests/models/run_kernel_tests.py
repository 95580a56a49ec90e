#!/usr/bin/env python3
"""End-to-end tests of `pt2onnx --compile` (kernel bundles), without a GPU unless --launch.

Default mode (CI; needs NVRTC, skips with a message if it cannot be loaded):
  * converts the decoder (llama-style) and MLP samples with --compile at opset 18; every bundle
    has manifest.json, its source and one cubin per arch (sm_80, sm_90);
  * every manifest validates against schema/kernel-manifest.schema.json (a small validator for
    the keywords that schema uses) and `bundle_launcher --verify` checks the cubins against it
    with pt2onnx's own ELF reader (e_flags SM, entry symbols, parameter sizes, sha256);
  * every image's PTX is in src/ as the manifest names it (sha256, size, one .entry per kernel);
    the GEMM and attention kernels have mma.sync (tensor cores) exactly when the bundle's inputs
    are fp16/bf16, and the fp16 decoder's DecoderAttention and GatedMLP have them (and cp.async
    in a GEMM) in both archs;
  * the ONNX is byte-identical with --compile and with --hiera of the same types; two runs give
    byte-identical bundles; --kernels-dir is honoured;
  * the torch reference data (samples/kernels/*.io.npz) agrees with onnxruntime running the
    bundle's ONNX function on the same inputs (fp32: rtol 1e-4, atol 1e-5), so the manifest's
    input order and the references are consistent;
  * the benchmark's bundles (samples/kernels/bench.default.pt2) resolve at every benchmark size
    (`bundle_launcher --bench --dry-run`);
  * a type with an op that has no template (an opaque plugin node) is refused naming the op,
    exit 4, ONNX written; a missing NVRTC (--nvrtc /nonexistent) fails with exit 6 saying what to install and
    writes nothing; --arch sm_70 fails with exit 2 listing the supported architectures.
--launch: runs bundle_launcher on every bundle with reference cases (exit 77 when no GPU).
--emulate: runs every bundle with reference cases on the CPU (tests/models/kernel_emulator.py:
  the generated CUDA C built with g++ against a shim that runs a block's threads as fibers, replayed as the
  manifest says) and compares with torch's outputs at the manifest's tolerance; also six zoo
  transformers compiled whole into one bundle each, against the zoo's torch references.
--prepare DIR: writes bundles, case directories, the benchmark's bundles (DIR/bench) and the launcher into
  DIR for scripts/gpu_check.sh.
"""
from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

# (sample, --compile types, expected exit status). In the decoder.core run RMSNorm is called only
# inside DecoderLayer: DecoderLayer's kernels inline its calls, and RMSNorm's own bundle takes its
# input types from those calls (four sites: two norms in each of two layers).
RUNS = [
    ("decoder.default", ["DecoderAttention", "RMSNorm", "GatedMLP", "LayerNorm", "Embedding"], 0),
    ("decoder.default", ["DecoderLayer"], 0),
    ("decoder.core", ["DecoderLayer", "LayerNorm", "RMSNorm"], 0),
    ("mlp_dynamic.default", ["Linear"], 0),
    ("wide.default", ["DecoderAttention", "GatedMLP", "LayerNorm", "RMSNorm"], 0),
    ("attention.default", ["SelfAttention"], 0),
    ("float_mask.default", ["FloatMaskAttention"], 0),
    ("decoder_fp16.default", ["DecoderAttention", "GatedMLP", "RMSNorm"], 0),
    ("decoder_bf16.default", ["DecoderAttention", "GatedMLP", "RMSNorm"], 0),
    ("decoder_fp16_dynamic.default", ["DecoderAttention", "GatedMLP", "RMSNorm"], 0),
    ("decoder_bf16_dynamic.default", ["DecoderAttention", "GatedMLP", "RMSNorm"], 0),
    ("convnet.default", ["Conv1dBlock", "GroupedConv2d", "PoolBlock", "SplitMix"], 0),
    ("cnn.default", ["Conv2d"], 0),
    ("odd_mlp_fp16_dynamic.default", ["OddMLP"], 0),
    ("wide_fp16.default", ["DecoderAttention", "GatedMLP"], 0),
    ("odd_mlp_bf16_dynamic.default", ["OddMLP"], 0),
    # GatedScale is called only inside TwinBlock with two input signatures: two bundles.
    ("twin.default", ["TwinBlock", "GatedScale"], 0),
    ("indexing.default", ["PickAndScan", "PairPick"], 0),
    ("padding.default", ["PadBlock"], 0),
    ("resizing.default", ["UpBlock"], 0),
    ("selecting.default", ["SelectBlock"], 0),
    ("scattering.default", ["ScatterBlock"], 0),
]
# fp16/bf16 samples whose bundles are also emulated as sm_75 (no mma.sync: the SIMT bodies).
SIMT_FALLBACK_EMULATED = ("odd_mlp_fp16_dynamic.default", "odd_mlp_bf16_dynamic.default", "wide_fp16.default")
NP_DTYPES = {"FLOAT": np.float32, "FLOAT16": np.float16, "BFLOAT16": np.uint16, "INT64": np.int64, "INT32": np.int32,
             "BOOL": np.bool_}
# Bundles against torch's own fp16/bf16 results (samples/kernels/decoder_fp16|bf16): torch rounds
# every op's result to 16 bits, the bundle keeps fp32 between ops and rounds once at the output,
# so they differ by a few roundings of intermediates of magnitude ~1. One unit in the last place
# at 1 is 2^-10 ~ 1e-3 for fp16 and 2^-7 ~ 8e-3 for bf16: fp16 allows ~10 of them, bf16 ~2.5
# (seen: fp16 2e-3, bf16 1.6e-2 on RMSNorm outputs in [2, 4), i.e. one ulp there).
# --kernel-tf32 runs (fp32 samples whose GEMMs then take TF32 operands) and their tolerance. TF32
# keeps 10 mantissa bits: unit roundoff u = 2^-11 ~ 4.9e-4 per operand, so a product is off by at
# most ~2u relative and a K-term dot product by at most 2u * sum|a_k b_k| (fp32 accumulation adds
# ~K * 2^-24, negligible). For these samples' unit-scale operands (K = 16..320) the rounding errors
# are independent, so they grow like sqrt(K): ~2u * sqrt(K) * E|ab| <= 1.2e-2 at K = 320, ~2e-3 at
# K = 32. rtol = atol = 1e-2 covers that (the worst-case 2u * K bound is 0.3 at K = 320, far from
# what happens); the fp32 tolerance (1e-4) stays for every run without the flag.
# Whole transformers models compiled into one bundle (--compile of the archive's root type), run
# on the CPU emulator against the zoo's torch references (samples/zoo/<stem>.io.npz, both batch
# shapes). The llama, bert and t5 functions hold GatherND, and llama's a CumSum and bert's a
# GatherElements, as transformers' code makes them; mixtral's router a top-2 TopK and its MoE
# block a full sort of the chosen experts (TopK with ties) and a ScatterND (about 40 s here).
ZOO_WHOLE_MODELS = [("zoo_llama.default", "Outputs_input_ids"),
                    ("zoo_falcon.default", "Outputs_input_ids"),
                    ("zoo_bert.default", "Outputs_input_ids_attention_mask"),
                    ("zoo_t5_encoder.default", "Outputs_input_ids_attention_mask"),
                    ("zoo_whisper_encoder.default", "Outputs_input_features"),
                    ("zoo_mixtral.default", "Outputs_input_ids")]
TF32_RUNS = [("mlp_dynamic.default", ["Linear"]), ("decoder.default", ["GatedMLP", "DecoderAttention"]),
             ("wide.default", ["GatedMLP"])]
TF32_TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
TORCH_16BIT_TOLERANCE = {"FLOAT16": {"rtol": 1e-2, "atol": 1e-2}, "BFLOAT16": {"rtol": 2e-2, "atol": 2e-2}}


def as_float64(a: np.ndarray, dtype: str) -> np.ndarray:
    """Values of an array in the manifest dtype; bfloat16 arrays hold uint16 bit patterns."""
    if dtype == "BFLOAT16":
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)
failures: list[str] = []


def max_abs_err(got, want) -> float:
    """Largest |got - want| over the elements that are not NaN in both (0 for none)."""
    diff = np.abs(np.asarray(got, dtype=np.float64) - np.asarray(want, dtype=np.float64))
    both_nan = np.isnan(np.asarray(got, dtype=np.float64)) & np.isnan(np.asarray(want, dtype=np.float64))
    diff = np.where(both_nan, 0.0, diff)
    return float(np.max(diff)) if diff.size else 0.0


def close(got, want, rtol, atol) -> bool:
    """allclose, with NaN matching only NaN (a sort with NaN must put them where torch does)."""
    return bool(np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True))


def check(cond, what):
    print(("  ok    " if cond else "  FAIL  ") + what)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def sample_path(samples: Path, stem: str) -> Path:
    p = samples / f"{stem}.pt2"
    return p if p.exists() else samples / "kernels" / f"{stem}.pt2"


def convert(pt2onnx, samples, stem, types, out_dir, extra=()):
    cmd = [pt2onnx, sample_path(samples, stem), "-o", out_dir / "model.onnx", "--opset", "18", "-q", *extra]
    for t in types:
        cmd += ["--compile", t]
    return run(cmd)


# ---- a validator for the JSON Schema keywords schema/kernel-manifest.schema.json uses ----
def validate(instance, schema, root, path="$"):
    errors = []
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/$defs/"), ref
        return validate(instance, root["$defs"][ref[len("#/$defs/"):]], root, path)
    if "oneOf" in schema:
        ok = [s for s in schema["oneOf"] if not validate(instance, s, root, path)]
        if len(ok) != 1:
            errors.append(f"{path}: matches {len(ok)} of oneOf")
        return errors
    t = schema.get("type")
    types = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
    if t == "integer":
        if not (isinstance(instance, int) and not isinstance(instance, bool)):
            return [f"{path}: not an integer"]
    elif t == "number":
        if not (isinstance(instance, (int, float)) and not isinstance(instance, bool)):
            return [f"{path}: not a number"]
    elif t is not None and not isinstance(instance, types[t]):
        return [f"{path}: not a {t}"]
    if "const" in schema and instance != schema["const"]:
        errors.append(f"{path}: not {schema['const']!r}")
    if "enum" in schema and instance not in schema["enum"]:
        errors.append(f"{path}: {instance!r} not in {schema['enum']}")
    if "pattern" in schema and isinstance(instance, str) and not re.search(schema["pattern"], instance):
        errors.append(f"{path}: {instance!r} does not match {schema['pattern']}")
    if "minimum" in schema and isinstance(instance, (int, float)) and instance < schema["minimum"]:
        errors.append(f"{path}: below {schema['minimum']}")
    if isinstance(instance, dict):
        for k in schema.get("required", []):
            if k not in instance:
                errors.append(f"{path}: missing {k}")
        props = schema.get("properties", {})
        for k, v in instance.items():
            if k in props:
                errors += validate(v, props[k], root, f"{path}.{k}")
            elif "patternProperties" in schema:
                matched = [s for p, s in schema["patternProperties"].items() if re.search(p, k)]
                if not matched and schema.get("additionalProperties") is False:
                    errors.append(f"{path}: unexpected key {k}")
                for s in matched:
                    errors += validate(v, s, root, f"{path}.{k}")
            elif isinstance(schema.get("additionalProperties"), dict):
                errors += validate(v, schema["additionalProperties"], root, f"{path}.{k}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected key {k}")
    if isinstance(instance, list):
        if "minItems" in schema and len(instance) < schema["minItems"]:
            errors.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(instance) > schema["maxItems"]:
            errors.append(f"{path}: more than {schema['maxItems']} items")
        if "items" in schema:
            for i, v in enumerate(instance):
                errors += validate(v, schema["items"], root, f"{path}[{i}]")
    return errors


def same_tree(a: Path, b: Path) -> bool:
    fa = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    fb = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    return fa == fb and all(filecmp.cmp(a / f, b / f, shallow=False) for f in fa)


def load_cases(npz_path: Path, manifest):
    """Cases of a reference file, keyed "symbols", "in.<input name>", "out.<output name>"."""
    data = np.load(npz_path)
    cases = {}
    for key in data.files:
        case, rest = key.split(".", 1)
        cases.setdefault(case, {})[rest] = data[key]
    ordered = [cases[k] for k in sorted(cases, key=lambda c: int(c[4:]))]
    for case in ordered[1:]:  # inputs equal to case 0's are stored once (make_kernel_refs.py)
        for key, value in ordered[0].items():
            if key.startswith("in.") and key not in case:
                case[key] = value
    named = []
    for case in ordered:  # stored by position in the function's signature
        c = {"symbols": case["symbols"]}
        for i, io in enumerate(manifest["inputs"]):
            c[f"in.{io['name']}"] = case[f"in.{i}"]
        for j, io in enumerate(manifest["outputs"]):
            c[f"out.{io['name']}"] = case[f"out.{j}"]
        named.append(c)
    return named


def write_case_dirs(npz_path: Path, manifest, out: Path):
    dirs = []
    for k, case in enumerate(load_cases(npz_path, manifest)):
        d = out / f"case{k}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "symbols.txt").write_text("".join(s.replace("=", " ") + "\n" for s in case["symbols"]))
        for io in manifest["inputs"]:
            case[f"in.{io['name']}"].astype(NP_DTYPES[io["dtype"]]).tofile(d / f"{io['name']}.bin")
        for io in manifest["outputs"]:
            case[f"out.{io['name']}"].astype(NP_DTYPES[io["dtype"]]).tofile(d / f"{io['name']}.bin")
        dirs.append(d)
    return dirs


def ort_check(model_path: Path, manifest, npz_path: Path):
    """onnxruntime on the bundle's function (wrapped in a one-node model) vs the torch reference."""
    import onnx
    import onnxruntime as ort
    from onnx import helper

    model = onnx.load(str(model_path))
    fn = next(f for f in model.functions if f.name == manifest["function"]["name"] and f.domain == manifest["function"]["domain"])
    worst = 0.0
    dtypes = {i["dtype"] for i in manifest["inputs"]}
    if "BFLOAT16" in dtypes:
        return True, "skipped: onnxruntime's CPU provider has no bfloat16 MatMul"
    # torch's fp16 rounds each op's result, onnxruntime's CPU fp16 differs in where it does.
    rtol, atol = (1e-2, 1e-2) if "FLOAT16" in dtypes else (1e-4, 1e-5)
    for k, case in enumerate(load_cases(npz_path, manifest)):
        syms = dict(s.split("=") for s in case["symbols"])
        inputs = [helper.make_tensor_value_info(i["name"], getattr(onnx.TensorProto, i["dtype"]), list(case[f"in.{i['name']}"].shape))
                  for i in manifest["inputs"]]
        outputs = [helper.make_tensor_value_info(o["name"], getattr(onnx.TensorProto, o["dtype"]), None) for o in manifest["outputs"]]
        node = helper.make_node(fn.name, [i["name"] for i in manifest["inputs"]], [o["name"] for o in manifest["outputs"]], domain=fn.domain)
        graph = helper.make_graph([node], "wrap", inputs, outputs)
        wrapped = helper.make_model(graph, opset_imports=list(model.opset_import), functions=list(model.functions),
                                  ir_version=model.ir_version)
        sess = ort.InferenceSession(wrapped.SerializeToString(), providers=["CPUExecutionProvider"])
        got = sess.run(None, {i["name"]: case[f"in.{i['name']}"] for i in manifest["inputs"]})
        for o, g in zip(manifest["outputs"], got):
            ref = case[f"out.{o['name']}"]
            ok = close(g, ref, rtol, atol)
            worst = max(worst, max_abs_err(g, ref))
            if not ok:
                return False, f"case {k} ({syms}) output {o['name']} max abs diff {max_abs_err(g, ref):.3g}"
    return True, f"max abs diff {worst:.3g}"


def emulate_cases(kernel_emulator, lib, manifest, npz, label, tolerance=None):
    """Runs every reference case of `npz` on an emulator build and checks each output against
    torch's: at `tolerance` when given, else torch's 16-bit tolerance or the manifest's."""
    for k, case in enumerate(load_cases(npz, manifest)):
        syms = {s.split("=")[0]: int(s.split("=")[1]) for s in case["symbols"]}
        got = kernel_emulator.run_case(lib, manifest, syms, {i["name"]: case[f"in.{i['name']}"] for i in manifest["inputs"]})
        for o in manifest["outputs"]:
            ref = as_float64(case[f"out.{o['name']}"], o["dtype"])
            tol = tolerance or TORCH_16BIT_TOLERANCE.get(o["dtype"]) or manifest["numerics"]["tolerance"].get(
                o["dtype"], {"rtol": 0, "atol": 0})
            g = as_float64(got[o["name"]], o["dtype"])
            err = max_abs_err(g, ref)
            ok = close(g, ref, tol["rtol"], tol["atol"])
            check(ok, f"{label} case{k} {syms}: output {o['name']} {o['dtype']} {list(ref.shape)} "
                      f"on the CPU emulator, max abs err {err:.3g} (rtol {tol['rtol']}, atol {tol['atol']})")


def emulate_whole_models(kernel_emulator, pt2onnx, samples: Path, work: Path):
    """Each ZOO_WHOLE_MODELS archive as one bundle on the emulator: its function's inputs are the
    model's inputs and the ONNX file's initializers, as the call site names them."""
    import onnx
    from onnx import numpy_helper

    for stem, root in ZOO_WHOLE_MODELS:
        out = work / f"whole.{stem}"
        out.mkdir()
        r = run([pt2onnx, samples / "zoo" / f"{stem}.pt2", "-o", out / "model.onnx", "--opset", "18", "-q",
                 "--arch", "sm_80", "--compile", root])
        if not check(r.returncode == 0, f"{stem} --compile {root}: exit {r.returncode} {r.stderr.strip()[:200]}"):
            continue
        model = onnx.load(str(out / "model.onnx"))
        weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        bundle = out / f"{root}.kernels"
        manifest = json.loads((bundle / "manifest.json").read_text())
        site = manifest["call_sites"][0]["inputs"]
        ref = np.load(samples / "zoo" / f"{stem}.io.npz")
        lib = kernel_emulator.build(bundle, manifest, work, 800)
        tol = manifest["numerics"]["tolerance"]["FLOAT"]
        for batch in ("", "b2_"):
            given = {i.name: ref[f"{batch}input_{k}"] for k, i in enumerate(model.graph.input)}
            ins = {i["name"]: weights[a] if a in weights else given[a] for i, a in zip(manifest["inputs"], site)}
            syms = {s: ins[f["from"]["input"]].shape[f["from"]["axis"]] for s, f in manifest["symbols"].items()}
            got = kernel_emulator.run_case(lib, manifest, syms, ins)
            for k, o in enumerate(manifest["outputs"]):
                want = ref[f"{batch}output_{k}"]
                g = got[o["name"]]
                err = max_abs_err(g, want)
                check(close(g, want, tol["rtol"], tol["atol"]),
                      f"{stem} as one bundle ({root}) {syms}: output {k} {list(want.shape)} on the CPU emulator, "
                      f"max abs err {err:.3g} (rtol {tol['rtol']}, atol {tol['atol']})")


def bundles_with_refs(pt2onnx, samples, work: Path, only=None, extra=()):
    """Converts every run into work/<i>; yields (stem, bundle dir, manifest, npz) for bundles with references.
    `only`: substrings of "<stem>.<Function>"; runs and bundles matching none are left out.
    `extra`: more pt2onnx arguments."""
    for i, (stem, types, expect_rc) in enumerate(RUNS):
        if only and not any(o == stem or o.startswith(stem + ".") or "." not in o for o in only):
            continue
        out = work / f"run{i}"
        out.mkdir(parents=True, exist_ok=True)
        r = convert(pt2onnx, samples, stem, types, out, extra)
        if r.returncode != expect_rc:
            failures.append(f"{stem} --compile {' '.join(types)}: exit {r.returncode}: {r.stderr.strip()}")
            continue
        for bundle in sorted(out.glob("*.kernels")):
            manifest = json.loads((bundle / "manifest.json").read_text())
            if only and not any(o in f"{stem}.{bundle.name[:-len('.kernels')]}" for o in only):
                continue
            # References are named after the bundle (<Function>, or <Function>_s<i> per input signature).
            npz = samples / "kernels" / f"{stem}.{bundle.name[:-len('.kernels')]}.io.npz"
            yield stem, bundle, manifest, npz if npz.exists() else None


PTX_ENTRY = re.compile(r"^\.visible \.entry (\w+)\(", re.M)
MMA_PTX = "mma.sync.aligned.m16n8k16.row.col.f32."
TF32_PTX = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"


def ptx_entries(text: str) -> dict:
    """Kernel symbol -> its PTX (from its .entry line to the next one)."""
    marks = [(m.group(1), m.start()) for m in PTX_ENTRY.finditer(text)]
    return {sym: text[start:(marks[i + 1][1] if i + 1 < len(marks) else len(text))] for i, (sym, start) in enumerate(marks)}


def ptx_checks(label: str, bundle: Path, manifest) -> dict:
    """The PTX beside the source, as the manifest names it; GEMM and attention kernels use
    tensor cores (mma.sync) exactly when the bundle's inputs are fp16/bf16. Returns counts."""
    import hashlib
    sixteen = any(i["dtype"] in ("FLOAT16", "BFLOAT16") for i in manifest["inputs"])
    counts = {"gemm": 0, "attention": 0, "gemm_cp_async": 0}
    for arch, img in manifest["images"].items():
        ptx = img.get("ptx")
        if not check(ptx is not None and (bundle / ptx["file"]).is_file(), f"{label} {arch}: PTX named in the manifest and written"):
            continue
        data = (bundle / ptx["file"]).read_bytes()
        check(hashlib.sha256(data).hexdigest() == ptx["sha256"] and len(data) == ptx["bytes"], f"{label} {arch}: PTX sha256 and size")
        entries = ptx_entries(data.decode())
        for key, k in manifest["kernels"].items():
            body = entries.get(k["symbol"])
            if not check(body is not None, f"{label} {arch}: PTX has entry {k['symbol']}"):
                continue
            kind = "attention" if k["computes"].startswith("attention") else (
                "gemm" if k["computes"].split(" ")[0] in ("MatMul", "Gemm") else None)
            if kind is None:
                continue
            has_mma = MMA_PTX in body
            counts[kind] += 1
            if kind == "gemm" and "cp.async.cg.shared.global" in body:
                counts["gemm_cp_async"] += 1
            check(has_mma == sixteen, f"{label} {arch}: {kind} kernel {key} ({k['computes'][:40]}) "
                                      f"{'has' if has_mma else 'has no'} {MMA_PTX}* (inputs {'16-bit' if sixteen else 'fp32'})")
    return counts


def nvrtc_available(pt2onnx, samples) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        r = convert(pt2onnx, samples, "mlp_dynamic.default", ["Linear"], Path(tmp))
        if r.returncode == 6 and "NVRTC" in r.stderr:
            return r.stderr.strip()
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pt2onnx", required=True, type=Path)
    ap.add_argument("--launcher", required=True, type=Path)
    ap.add_argument("--samples", required=True, type=Path)
    ap.add_argument("--schema", type=Path)
    ap.add_argument("--launch", action="store_true")
    ap.add_argument("--prepare", type=Path)
    ap.add_argument("--emulate", action="store_true")
    ap.add_argument("--only", nargs="*", help="with --emulate: only bundles whose '<sample>.<Function>' contains one of these")
    args = ap.parse_args()

    why = nvrtc_available(args.pt2onnx, args.samples)
    if why:
        print(f"SKIP: NVRTC cannot be loaded, so --compile cannot run here: {why}")
        return 77

    if args.prepare:
        dest = args.prepare
        shutil.rmtree(dest, ignore_errors=True)
        (dest / "bundles").mkdir(parents=True)
        shutil.copy2(args.launcher, dest / "bundle_launcher")
        with tempfile.TemporaryDirectory() as tmp:
            for stem, bundle, manifest, npz in bundles_with_refs(args.pt2onnx, args.samples, Path(tmp)):
                if npz is None:
                    continue
                name = f"{stem}.{bundle.name}"
                shutil.copytree(bundle, dest / "bundles" / name)
                write_case_dirs(npz, manifest, dest / "cases" / name)
                print(f"  prepared {name}")
            # The benchmark's bundles (bundle_launcher --bench; every size dynamic, no references).
            (dest / "bench").mkdir()
            r = convert(args.pt2onnx, args.samples, "bench.default", ["BenchMatMul", "BenchAttention", "BenchRMSNorm", "BenchLayerNorm"],
                        dest / "bench")
            if r.returncode != 0:
                failures.append(f"bench.default --compile: exit {r.returncode}: {r.stderr.strip()}")
            print(f"  prepared {len(list((dest / 'bench').glob('*.kernels')))} benchmark bundles")
        return 1 if failures else 0

    if args.emulate:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import kernel_emulator

        with tempfile.TemporaryDirectory() as tmp:
            # The emulator reads the source and the manifest only: one architecture's cubin is enough
            # (the default test checks both architectures' images).
            for stem, bundle, manifest, npz in bundles_with_refs(args.pt2onnx, args.samples, Path(tmp), args.only,
                                                                 ("--arch", "sm_80")):
                if npz is None:
                    continue
                # The tensor-core paths (sm_80); for the samples made for the tensor-core kernels'
                # edges also the SIMT fallbacks the same source has for older archs (sm_75).
                archs = [800, 750] if stem in SIMT_FALLBACK_EMULATED else [800]
                for arch in archs:
                    lib = kernel_emulator.build(bundle, manifest, Path(tmp), arch)
                    emulate_cases(kernel_emulator, lib, manifest, npz, f"{stem} {bundle.name} sm_{arch // 10}")
            if not args.only:
                emulate_whole_models(kernel_emulator, args.pt2onnx, args.samples, Path(tmp))
            # --kernel-tf32: the fp32 GEMMs on tensor cores (mma.sync m16n8k8, operands rounded to
            # TF32, fp32 accumulation), the rest as without it, against the same fp32 references.
            for stem, types in TF32_RUNS:
                if args.only and not any(o == stem or o.startswith(stem + ".") for o in args.only):
                    continue
                out = Path(tmp) / f"tf32.{stem}"
                out.mkdir()
                r = convert(args.pt2onnx, args.samples, stem, types, out, ("--arch", "sm_80", "--kernel-tf32"))
                if not check(r.returncode == 0, f"{stem} --kernel-tf32 --compile {' '.join(types)}: exit {r.returncode} {r.stderr.strip()[:200]}"):
                    continue
                for bundle in sorted(out.glob("*.kernels")):
                    manifest = json.loads((bundle / "manifest.json").read_text())
                    npz = args.samples / "kernels" / f"{stem}.{bundle.name[:-len('.kernels')]}.io.npz"
                    lib = kernel_emulator.build(bundle, manifest, Path(tmp), 800)
                    emulate_cases(kernel_emulator, lib, manifest, npz, f"{stem} {bundle.name} tf32 sm_80", TF32_TOLERANCE)
        if failures:
            print(f"\n{len(failures)} failure(s)")
            return 1
        print("all emulated bundles match torch")
        return 0

    if args.launch:
        codes = []
        with tempfile.TemporaryDirectory() as tmp:
            for stem, bundle, manifest, npz in bundles_with_refs(args.pt2onnx, args.samples, Path(tmp)):
                if npz is None:
                    continue
                dirs = write_case_dirs(npz, manifest, Path(tmp) / "cases" / f"{stem}.{bundle.name}")
                r = run([args.launcher, bundle, *dirs])
                print(f"{stem} {bundle.name}: exit {r.returncode}\n{r.stdout}{r.stderr}")
                codes.append(r.returncode)
                if r.returncode == 77:
                    break  # no GPU: one skip message is enough
        if failures:
            print("\n".join("FAIL " + f for f in failures))
            return 1
        if codes and all(c == 77 for c in codes):
            print("SKIP: no GPU (bundle_launcher exited 77)")
            return 77
        return 0 if codes and all(c == 0 for c in codes) else 1

    schema = json.loads(args.schema.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        seen = 0
        fp16_ptx_seen = 0
        for stem, bundle, manifest, npz in bundles_with_refs(args.pt2onnx, args.samples, work / "a"):
            seen += 1
            label = f"{stem} {bundle.name}"
            errors = validate(manifest, schema, schema)
            check(not errors, f"{label}: manifest matches the schema {errors[:3] if errors else ''}")
            files = {p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file()}
            fname = bundle.name[:-len(".kernels")]  # the bundle's name: the function's, or <function>_s<i>
            expect = {"manifest.json", f"src/{fname}.cu", f"sm_80/{fname}.cubin", f"sm_90/{fname}.cubin",
                      f"src/{fname}.sm_80.ptx", f"src/{fname}.sm_90.ptx"}
            check(files == expect, f"{label}: files {sorted(files)}")
            counts = ptx_checks(label, bundle, manifest)
            if stem == "decoder_fp16.default" and fname in ("DecoderAttention", "GatedMLP"):
                # The fp16 decoder: its GEMMs and its attention on tensor cores in both archs' PTX.
                want = {"gemm": 1, "attention": 1 if fname == "DecoderAttention" else 0, "gemm_cp_async": 1}
                check(all(counts[k] >= 2 * v for k, v in want.items()),
                      f"{label}: tensor-core kernels in the PTX of sm_80 and sm_90: {counts}")
                fp16_ptx_seen += 1
            r = run([args.launcher, "--verify", bundle])
            check(r.returncode == 0, f"{label}: bundle_launcher --verify (cubins vs manifest)\n{r.stdout}")
            if npz is not None:
                ok, detail = ort_check(bundle.parent / "model.onnx", manifest, npz)
                check(ok, f"{label}: torch references == onnxruntime on the function ({detail})")
        check(seen >= 8, f"{seen} bundles made (expected at least 8)")
        check(fp16_ptx_seen == 2, f"fp16 decoder DecoderAttention and GatedMLP PTX checked ({fp16_ptx_seen})")

        # The llama-style sample's attention: ONNX identical to --hiera, bundles deterministic.
        for i, (stem, types, expect_rc) in enumerate(RUNS):
            b = work / f"b{i}"
            h = work / f"h{i}"
            b.mkdir()
            h.mkdir()
            r = convert(args.pt2onnx, args.samples, stem, types, b)
            cmd = [args.pt2onnx, sample_path(args.samples, stem), "-o", h / "model.onnx", "--opset", "18", "-q"]
            for t in types:
                cmd += ["--hiera", t]
            r2 = run(cmd)
            check(r.returncode == expect_rc and r2.returncode == 0 and filecmp.cmp(b / "model.onnx", h / "model.onnx", shallow=False),
                  f"{stem}: ONNX byte-identical with --compile and --hiera {' '.join(types)}")
            a_dir = work / "a" / f"run{i}"
            check(all(same_tree(a_dir / d.name, d) for d in b.glob("*.kernels")) and len(list(b.glob("*.kernels"))) > 0,
                  f"{stem}: bundles byte-identical across two runs")

        kd = work / "kd"
        kd.mkdir()
        r = convert(args.pt2onnx, args.samples, "decoder.default", ["DecoderAttention"], kd,
                    extra=("--kernels-dir", kd / "bundles", "--arch", "sm_90"))
        got = sorted(p.relative_to(kd).as_posix() for p in kd.rglob("*") if p.is_file())
        check(r.returncode == 0 and "bundles/DecoderAttention.kernels/sm_90/DecoderAttention.cubin" in got
              and not any("sm_80" in g for g in got), f"--kernels-dir and --arch sm_90: {got}")

        ref = work / "ref"
        ref.mkdir()
        r = convert(args.pt2onnx, args.samples, "decoder.default", ["DecoderLayer"], ref,
                    extra=("--config", args.samples / "hiera" / "decoder.opaque.config.json",
                           "--kernels-dir", ref / "bundles"))
        check(r.returncode == 4 and "op DecoderAttentionPlugin" in r.stderr and (ref / "model.onnx").exists()
              and not list(ref.glob("*.kernels")) and not (ref / "bundles").exists(),
              f"a type holding an op with no template is refused naming the op, ONNX written, no empty "
              f"--kernels-dir left (exit {r.returncode}: {r.stderr.strip()[:160]})")

        # --kernel-tf32: the fp32 GEMM on tensor cores as TF32 in both archs' PTX; stated in the manifest.
        tf = work / "tf32"
        tf.mkdir()
        r = convert(args.pt2onnx, args.samples, "mlp_dynamic.default", ["Linear"], tf, extra=("--kernel-tf32",))
        tf_ok = r.returncode == 0 and (tf / "Linear.kernels").is_dir()
        seen_tf32 = []
        if tf_ok:
            m = json.loads((tf / "Linear.kernels" / "manifest.json").read_text())
            check(not validate(m, schema, schema), "--kernel-tf32 manifest matches the schema")
            tf_ok = m["numerics"].get("tf32") is True and m["numerics"]["tolerance"]["FLOAT"] == TF32_TOLERANCE
            for arch, img in m["images"].items():
                entries = ptx_entries((tf / "Linear.kernels" / img["ptx"]["file"]).read_text())
                for k in m["kernels"].values():
                    if k["computes"].split(" ")[0] in ("MatMul", "Gemm"):
                        body = entries.get(k["symbol"], "")
                        seen_tf32.append((arch, TF32_PTX in body and "cvt.rna.tf32.f32" in body and MMA_PTX not in body))
        check(tf_ok and len(seen_tf32) == 2 and all(ok for _, ok in seen_tf32),
              f"--kernel-tf32: the fp32 GEMM has {TF32_PTX}* and cvt.rna.tf32.f32 in sm_80 and sm_90, numerics say tf32: {seen_tf32}")

        # GatedScale is called only inside TwinBlock, at two widths: a bundle per input signature.
        twin = work / "a" / f"run{[r[0] for r in RUNS].index('twin.default')}"
        sigs = {}
        for b in sorted(twin.glob("GatedScale*.kernels")):
            m = json.loads((b / "manifest.json").read_text())
            sigs[b.name] = (m["function"]["name"], m.get("signature"), [i["shape"] for i in m["inputs"]])
        check(sigs == {"GatedScale_s0.kernels": ("GatedScale", {"bundle": "GatedScale_s0", "index": 0, "of": 2},
                                                 [[32, 32], [2, 8, 32], [32]]),
                       "GatedScale_s1.kernels": ("GatedScale", {"bundle": "GatedScale_s1", "index": 1, "of": 2},
                                                 [[16, 16], [2, 4, 16], [16]])},
              f"a type called only inside another function with two input signatures gets two bundles: {sigs}")

        nested = work / "nested"
        nested.mkdir()
        r = convert(args.pt2onnx, args.samples, "decoder.core", ["RMSNorm"], nested, extra=("--hiera", "DecoderLayer"))
        sites = []
        if (nested / "RMSNorm.kernels").is_dir():
            sites = [s["node"] for s in json.loads((nested / "RMSNorm.kernels" / "manifest.json").read_text())["call_sites"]]
        check(r.returncode == 0 and not (nested / "DecoderLayer.kernels").exists() and len(sites) == 4
              and all(s.startswith(("layers.0/", "layers.1/")) for s in sites),
              f"a type called only inside another (not compiled) function gets a bundle from the calls there: {sites} "
              f"(exit {r.returncode}: {r.stderr.strip()[:200]})")

        # The benchmark's bundles and what --bench would launch at every size (no GPU needed).
        bench = work / "bench"
        bench.mkdir()
        r = convert(args.pt2onnx, args.samples, "bench.default", ["BenchMatMul", "BenchAttention", "BenchRMSNorm", "BenchLayerNorm"],
                    bench, extra=("--arch", "sm_90"))
        d = run([args.launcher, "--bench", "--dry-run", *sorted(bench.glob("*.kernels"))])
        check(r.returncode == 0 and d.returncode == 0 and "13 cases" in d.stdout and "GEMM 4096^3" in d.stdout,
              f"bench.default: 4 bundles, bundle_launcher --bench --dry-run resolves every case (exit {r.returncode}/{d.returncode}: "
              f"{(r.stderr + d.stdout).strip()[-200:]})")

        nv = work / "nonvrtc"
        nv.mkdir()
        r = convert(args.pt2onnx, args.samples, "decoder.default", ["DecoderAttention"], nv, extra=("--nvrtc", "/nonexistent/libnvrtc.so.13"))
        check(r.returncode == 6 and "Install" in r.stderr and not any(nv.iterdir()),
              f"missing NVRTC: exit 6, says what to install, nothing written ({r.stderr.strip()[:120]})")

        arch = work / "arch"
        arch.mkdir()
        r = convert(args.pt2onnx, args.samples, "decoder.default", ["DecoderAttention"], arch, extra=("--arch", "sm_70"))
        check(r.returncode == 2 and "sm_80" in r.stderr and "sm_90" in r.stderr and not any(arch.iterdir()),
              f"--arch sm_70 refused listing the supported ones ({r.stderr.strip()[:160]})")

    if failures:
        print(f"\n{len(failures)} failure(s)")
        return 1
    print("all kernel bundle checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
