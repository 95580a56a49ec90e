#!/usr/bin/env python3
"""End-to-end tests of quantized programs (run by ctest as the `quant` test).

samples/quant/ (scripts/make_quant_samples.py) holds programs made by real quantization flows
(PT2E static, QAT and dynamic; torchao weight-only int8 and int4) and quant_samples.json says what
each must become. For every sample, at opsets 18 and 21 (and the sample's own):

- convert, check the model (onnx.checker full_check), and check that it uses the expected ONNX
  ops and that every int8/uint8 weight the program reads is an int8/uint8 initializer of the ONNX
  (quantized weights are never turned into floats), those a dequantize reads with a 4-bit range
  INT4/UINT4 initializers of ceil(n / 2) bytes, and that no float initializer is left of the
  size of one of them; the dequantized 4-bit weights equal torch's exactly;
- reference run: onnxruntime with graph optimizations off runs the ONNX as written (QDQ as float
  arithmetic). Tolerance: an output that torch computes through a final dequantize_per_tensor of
  scale s matches within one quantization step (|ort - torch| <= s * (1 + 1e-4)): QuantizeLinear
  divides by the scale where torch multiplies by its reciprocal, so a value on a rounding tie may
  land one step away; an integer (quantized) output within 1 (its step); a fake quantizer's
  mask exactly. Other (float) outputs: rtol 1e-4, atol 1e-5.
- state: a QAT program exported before convert_pt2e updates its observers' buffers (running
  min/max, scale, zero point) on every call; they must be ONNX state (`pkg.pt2onnx.state` pairs
  each with its `<name>.new` output, in the manifest's order), and their new values, which follow
  the outputs in `<name>.io.npz`, match torch's as outputs do (float tolerance; zero points as
  integers). The program's output is fake-quantized: its step is its observer's scale.
- refusals: a sample whose form an opset cannot hold (int16 and 4-bit weights below opset 21,
  float8 weights below 19) is refused there with exit code 4 and one stderr line naming the
  opset that can; `inspect --json` says so of the 4-bit weights in advance (and lists them as
  4-bit where they convert, and no weight as refused where the sample converts).
- integer kernels: onnxruntime with every graph optimization (ORT_ENABLE_ALL), its optimized model
  saved through optimized_model_filepath must hold the kernels the manifest names (QLinearConv,
  QGemm, MatMulIntegerToFloat, MatMulNBits). onnxruntime's kernels requantize in their own
  arithmetic (int32 accumulation, u8s8 on x86), so their numbers are reported (max error in
  steps and absolute) and bounded only loosely: within 16 steps, or 5% of the output's range for
  float outputs.
- --matmul-nbits (samples whose manifest gives `matmul_nbits`, opset 21+): that many
  com.microsoft.MatMulNBits, checker, onnxruntime with optimizations off and on within the float
  tolerance below.
  onnxruntime 1.32's QDQS8ToU8Transformer can leave a QuantizeLinear whose int8 output_dtype
  disagrees with the uint8 zero point it gave it ("output_dtype INT8 does not match y_zero_point
  type UINT8" at session creation, on int8 activations around MatMul+Add of 3-D inputs; torch.onnx's
  export of the same archive fails the same way). Where session creation fails so, the session
  is made again with that one optimizer disabled, and the line says so.

Prints a table (sample, opset, ops, errors, sizes float vs quantized, run times float vs
quantized) and ends with `N passed, M failed`. Needs numpy, onnx and onnxruntime (the test venv).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

RTOL, ATOL = 1e-4, 1e-5
KERNEL_STEPS, KERNEL_FLOAT_SHARE = 16, 0.05
ORT_BROKEN = "QDQS8ToU8Transformer"  # see the docstring
ORT_BROKEN_SIGN = "does not match y_zero_point type"
OPSETS = (18, 21)
UINT4, INT4 = 21, 22  # onnx.TensorProto's 4-bit types
FLOAT8E4M3FN, FLOAT8E5M2 = 17, 19


class Failed(Exception):
    pass


def convert(exe, pt2: Path, out: Path, opset: int, extra=()):
    r = subprocess.run([str(exe), str(pt2), "-o", str(out), "--opset", str(opset), "-q", *extra],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise Failed(f"pt2onnx exit {r.returncode}: {r.stderr.strip()}")
    return out


def session(path: Path, optimize: bool, saved: Path | None = None, notes: list | None = None):
    """An onnxruntime session; with `optimize`, every graph optimization (but ORT_BROKEN where
    session creation fails on it: noted in `notes`)."""
    try:
        return make_session(path, optimize, saved, [])
    except Exception as e:
        if not optimize or ORT_BROKEN_SIGN not in str(e):
            raise
    if notes is not None:
        notes.append(f"without {ORT_BROKEN}")
    return make_session(path, optimize, saved, [ORT_BROKEN])


def make_session(path: Path, optimize: bool, saved: Path | None, disabled: list):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize
                                   else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    if saved:
        so.optimized_model_filepath = str(saved)
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"], disabled_optimizers=disabled)


def run(sess, io):
    feeds = {i.name: io[f"input_{k}"] for k, i in enumerate(sess.get_inputs())}
    return sess.run(None, feeds), feeds


def median_time(sess, feeds, runs=50):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        sess.run(None, feeds)
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def inspected_weights(exe, pt2: Path, opset: int):
    """inspect --json's quantized weights at `opset`: {fqn: entry}."""
    r = subprocess.run([str(exe), "inspect", str(pt2), "--json", "--opset", str(opset)], capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        raise Failed(f"inspect exit {r.returncode}: {r.stderr.strip()}")
    return {w["weight"]: w for w in json.loads(r.stdout)["models"][0]["quantization"]["weights"]}


def check_inspected(exe, pt2: Path, spec: dict, opset: int, refused: bool):
    """inspect says in advance how the ONNX holds each 4-bit weight, or that the opset refuses it
    (naming the opset that can), as convert then does."""
    weights = inspected_weights(exe, pt2, opset)
    for w in spec.get("int4_weights", []):
        entry = weights.get(w)
        if entry is None or not entry["values"].split(" ")[0] in ("int4", "uint4"):
            raise Failed(f"inspect does not report 4-bit weight {w} (reports {sorted(weights)})")
    said_refused = [w for w, e in weights.items() if e["onnx"].startswith("refused")]
    if refused and spec.get("int4_weights") and not any(f"opset {spec['refused_below']}" in weights[w]["onnx"] for w in said_refused):
        raise Failed(f"inspect at opset {opset} does not say the weights are refused (convert refuses them)")
    if not refused and said_refused:
        raise Failed(f"inspect at opset {opset} says {said_refused} are refused, but convert converts them")


def check_refusal(exe, samples: Path, name: str, spec: dict, opset: int, tmp: Path):
    out = tmp / f"{name}.{opset}.onnx"
    r = subprocess.run([str(exe), str(samples / f"{name}.pt2"), "-o", str(out), "--opset", str(opset)],
                       capture_output=True, text=True, timeout=300)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 4 or len(lines) != 1 or f"opset {spec['refused_below']}" not in lines[0] or out.exists():
        raise Failed(f"expected one refusal line naming opset {spec['refused_below']} and exit 4, got exit "
                     f"{r.returncode}: {r.stderr.strip()}")
    check_inspected(exe, samples / f"{name}.pt2", spec, opset, True)


def check_dequantized(model, io, path: Path):
    """The ONNX's dequantized 4-bit weights (the values its DequantizeLinear makes of the packed
    initializers, named after torch's dequantize nodes) equal torch's exactly: (q - zero) * scale
    in float32 on both sides."""
    import onnx

    wanted = {k[len("dequantized_"):]: io[k] for k in io.files if k.startswith("dequantized_")}
    if not wanted:
        return
    made = {o for n in model.graph.node for o in n.output}
    absent = sorted(set(wanted) - made)
    if absent:
        raise Failed(f"dequantized weights {absent} are not values of the ONNX")
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    for name in wanted:
        probe.graph.output.append(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    onnx.save(probe, str(path))
    sess = session(path, False)
    outs, _ = run(sess, io)
    got = dict(zip([o.name for o in sess.get_outputs()], outs))
    for name, want in wanted.items():
        if got[name].shape != want.shape or not np.array_equal(got[name], want):
            raise Failed(f"dequantized weight {name}: max abs error {np.abs(got[name] - want).max():.3g} (must be exact)")


def check_matmul_nbits(exe, pt2: Path, spec: dict, io, opset: int, tmp: Path):
    """--matmul-nbits: the 4-bit Linear layers become com.microsoft.MatMulNBits (as many as the
    manifest says), the model passes the checker, and onnxruntime matches torch with graph
    optimizations off and on (the same float tolerance: the kernel dequantizes exactly and
    accumulates in float32). Returns the worst error."""
    import onnx

    path = convert(exe, pt2, tmp / f"{pt2.stem}.{opset}.nbits.onnx", opset, ["--matmul-nbits"])
    model = onnx.load(str(path))
    onnx.checker.check_model(model, full_check=True)
    made = sum(n.op_type == "MatMulNBits" and n.domain == "com.microsoft" for n in model.graph.node)
    if made != spec["matmul_nbits"]:
        raise Failed(f"--matmul-nbits made {made} MatMulNBits, expected {spec['matmul_nbits']}")
    worst = 0.0
    for optimize in (False, True):
        outs, _ = run(session(path, optimize), io)
        for k, out in enumerate(outs):
            want = io[f"output_{k}"]
            err = np.abs(out.astype(np.float64) - want)
            if not np.all(err <= ATOL + RTOL * np.abs(want)):
                raise Failed(f"--matmul-nbits: output {k} max abs error {err.max():.3g} (rtol {RTOL}, atol {ATOL})")
            worst = max(worst, float(err.max()))
    return worst


def check_sample(exe, samples: Path, name: str, spec: dict, opset: int, tmp: Path, rows: list):
    import onnx

    pt2, io = samples / f"{name}.pt2", np.load(samples / f"{name}.io.npz")
    path = convert(exe, pt2, tmp / f"{name}.{opset}.onnx", opset)
    model = onnx.load(str(path))
    onnx.checker.check_model(model, full_check=True)
    ops = {n.op_type for n in model.graph.node}
    missing = [op for op in spec["onnx_ops"] if op not in ops and (opset >= spec["opset"] or op != "DequantizeLinear")]
    if missing:
        raise Failed(f"ONNX ops {missing} missing (has {sorted(ops)})")
    inits = {t.name: t for t in model.graph.initializer}
    int_types = (onnx.TensorProto.INT8, onnx.TensorProto.UINT8, INT4, UINT4, FLOAT8E4M3FN, FLOAT8E5M2)
    int_inits = [t for t in model.graph.initializer if t.data_type in int_types]
    four_bit = set(spec.get("int4_weights", []))

    def stored(w):  # by name, transposed into `<name>.T`, or packed into `<name>.int4` by the weight passes
        return next((inits[n] for n in (w, w + ".T", w + ".int4", w + ".uint4") if n in inits), None)

    for w in spec["int_weights"]:
        t = stored(w)
        if t is None or t.data_type not in int_types:
            raise Failed(f"quantized weight {w} is not an int8/uint8/int4/uint4/float8 initializer")
        if w in four_bit and (t.data_type not in (INT4, UINT4) or len(t.raw_data) != (int(np.prod(t.dims)) + 1) // 2):
            raise Failed(f"4-bit weight {w} is not an INT4/UINT4 initializer packed two per byte "
                         f"(type {t.data_type}, {len(t.raw_data)} bytes for {int(np.prod(t.dims))} elements)")
    # (the int weights over 256 elements: a group-wise scale has the dims of its int8 zero point)
    weight_dims = {tuple(sorted(t.dims)) for t in map(stored, spec["int_weights"]) if np.prod(t.dims) >= 256}
    floats = [t.name for t in model.graph.initializer if t.data_type == onnx.TensorProto.FLOAT
              and tuple(sorted(t.dims)) in weight_dims]
    if floats:
        raise Failed(f"float initializers of a quantized weight's size: {floats}")

    if spec.get("state"):  # a QAT program's observer buffers: state inputs paired with `<name>.new` outputs
        pairs = json.loads(next((p.value for p in model.metadata_props if p.key == "pkg.pt2onnx.state"), "{}"))
        if pairs != {b: f"{b}.new" for b in spec["state"]}:
            raise Failed(f"pkg.pt2onnx.state is {pairs}, not the observers' buffers {spec['state']}")
        if [o.name for o in model.graph.output[1:]] != [f"{b}.new" for b in spec["state"]]:
            raise Failed(f"state outputs {[o.name for o in model.graph.output[1:]]} are not the observers' buffers in order")
    check_dequantized(model, io, tmp / f"{name}.{opset}.dq.onnx")
    check_inspected(exe, pt2, spec, opset, False)
    ref, feeds = run(session(path, False), io)
    worst_steps = []
    for k, out in enumerate(ref):
        want, step = io[f"output_{k}"], spec["steps"][k]
        if want.dtype == np.bool_:  # a fake quantizer's mask: exactly torch's
            if out.shape != want.shape or not np.array_equal(out, want):
                raise Failed(f"reference run: mask output {k} differs from torch's in {int((out != want).sum())} places")
            continue
        if np.issubdtype(want.dtype, np.integer):
            step = 1
        err = np.abs(out.astype(np.float64) - want)
        if step:
            if err.max() > step * (1 + 1e-4):
                raise Failed(f"reference run: output {k} off by {err.max() / step:.2f} steps (max 1)")
            worst_steps.append(f"{err.max() / step:.0f} step, {int((err > step / 2).sum())}/{err.size} off")
        elif not np.all(err <= ATOL + RTOL * np.abs(want)):
            raise Failed(f"reference run: output {k} max abs error {err.max():.3g} (rtol {RTOL}, atol {ATOL})")
        else:
            worst_steps.append(f"{err.max():.1e} abs")

    if spec.get("matmul_nbits") and opset >= 21:
        worst_steps[0] += f", MatMulNBits x{spec['matmul_nbits']} {check_matmul_nbits(exe, pt2, spec, io, opset, tmp):.1e}"
    saved = tmp / f"{name}.{opset}.ort.onnx"
    notes = []
    fast = session(path, True, saved, notes)
    opt, _ = run(fast, io)
    kernels = {n.op_type for n in onnx.load(str(saved)).graph.node}
    absent = [k for k in spec["kernels"] if k not in kernels]
    if absent:
        raise Failed(f"onnxruntime's optimized model lacks {absent} (has {sorted(kernels)})")
    kernel_errs = []
    for k, out in enumerate(opt):
        want, step = io[f"output_{k}"], spec["steps"][k]
        if want.dtype == np.bool_:
            want, out = want.astype(np.int64), out.astype(np.int64)
        if np.issubdtype(want.dtype, np.integer):
            step = 1
        err = float(np.abs(out.astype(np.float64) - want).max())
        bound = step * KERNEL_STEPS if step else KERNEL_FLOAT_SHARE * float(want.max() - want.min()) + ATOL
        if err > bound:
            raise Failed(f"integer kernels: output {k} max abs error {err:.3g} over {bound:.3g}")
        kernel_errs.append(f"{err / step:.0f} steps ({err:.2g})" if step else f"{err:.2g}")

    float_path = convert(exe, samples / f"{name}.float.pt2", tmp / f"{name}.float.{opset}.onnx", opset)
    float_sess = session(float_path, True)
    def summary(items):  # the first output's figure, and how many outputs there are beyond it
        return items[0] + (f" (+{len(items) - 1} outputs)" if len(items) > 1 else "")

    rows.append([name, str(opset), ",".join(sorted(k for k in spec["kernels"])) + "".join(f" ({n})" for n in notes) or "-", summary(worst_steps), summary(kernel_errs), f"{path.stat().st_size / 1024:.1f}/{float_path.stat().st_size / 1024:.1f} kB",
                 f"{median_time(fast, feeds) * 1e6:.0f}/{median_time(float_sess, feeds) * 1e6:.0f} us",
                 str(len(int_inits))])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pt2onnx", required=True, type=Path)
    ap.add_argument("--samples", required=True, type=Path)
    args = ap.parse_args(argv)
    samples = args.samples / "quant"
    manifest = json.loads((samples / "quant_samples.json").read_text())
    passed = failed = 0
    rows = []
    with tempfile.TemporaryDirectory() as td:
        for name, spec in manifest.items():
            for opset in sorted(set(OPSETS) | {spec["opset"]}):
                label = f"{name} opset {opset}"
                try:
                    if spec.get("refused_below") and opset < spec["refused_below"]:
                        check_refusal(args.pt2onnx, samples, name, spec, opset, Path(td))
                        label += " (refused)"
                    else:
                        check_sample(args.pt2onnx, samples, name, spec, opset, Path(td), rows)
                    print(f"PASS {label}")
                    passed += 1
                except Exception as e:  # report each failure and go on
                    print(f"FAIL {label}: {type(e).__name__}: {e}")
                    failed += 1
    header = ["sample", "opset", "ORT kernels", "reference error", "kernel error", "onnx size q/float",
              "time q/float", "int8 inits"]
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for r in [header] + rows:
        print("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)))
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
