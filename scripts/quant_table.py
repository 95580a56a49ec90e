#!/usr/bin/env python3
"""The quantization table (issue 32's "must show"; tooling, not CI): for every sample of
samples/quant/, pt2onnx's ONNX and torch.onnx's export of the same archive, side by side.

Columns: sample and opset; the ONNX ops pt2onnx's conversion uses (standard domain, and
com.microsoft with --matmul-nbits); the worst output error of onnxruntime with optimizations off
against torch's eager output, in quantization steps (the output's final dequantize scale; 1 for
an integer output) and absolute; the same with every onnxruntime optimization (its integer
kernels, which the optimized model names); the .onnx size of the quantized program against the
float one's (both converted by pt2onnx); and what torch.onnx.export(ExportedProgram, dynamo=True)
makes of the same .pt2 at the same opset (its worst error in onnxruntime with optimizations off
and its size, or the first line of its failure).

With --llama, also a tiny Llama (transformers) with torchao int4 weight-only: ONNX sizes and a
16-token greedy decode in onnxruntime against torch's.

Usage (the torch venv with torchao, `scripts/torch_venv.sh 2.15 --quant`):
    python scripts/quant_table.py --pt2onnx build/pt2onnx [--samples samples/quant] [--only a,b] [--llama]
"""
from __future__ import annotations

import argparse
import collections
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np


def convert(exe, pt2, out, opset, extra=()):
    r = subprocess.run([str(exe), str(pt2), "-o", str(out), "--opset", str(opset), "-q", *extra],
                       capture_output=True, text=True, timeout=600)
    return None if r.returncode else out, r.stderr.strip()


def ort_run(path, io, optimize, saved=None):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize
                                   else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    if saved:
        so.optimized_model_filepath = str(saved)
    try:
        sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime 1.32's QDQS8ToU8Transformer (see run_quant_tests.py)
        if not optimize or "does not match y_zero_point type" not in str(e):
            raise
        sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"],
                                    disabled_optimizers=["QDQS8ToU8Transformer"])
    feeds = {i.name: io[f"input_{k}"] for k, i in enumerate(sess.get_inputs())}
    return sess.run(None, feeds)


def worst(outs, io, steps):
    """(worst error in steps or None, worst absolute error) over the outputs."""
    in_steps, absolute = None, 0.0
    for k, out in enumerate(outs):
        want = io[f"output_{k}"]
        err = float(np.abs(np.asarray(out, dtype=np.float64) - want).max()) if want.size else 0.0
        step = 1.0 if np.issubdtype(want.dtype, np.integer) else steps[k]
        if step:
            in_steps = max(in_steps or 0.0, err / step)
        absolute = max(absolute, err)
    return in_steps, absolute


def fmt(in_steps, absolute):
    return (f"{in_steps:.0f} steps / " if in_steps is not None else "") + f"{absolute:.1e}"


def ops_of(path):
    import onnx

    counts = collections.Counter((n.domain + "." if n.domain else "") + n.op_type
                                 for n in onnx.load(str(path), load_external_data=False).graph.node)
    return counts


def torch_onnx(pt2, out, opset, io, steps):
    import torch

    import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)
    import torchao  # noqa: F401  (registers torchao's ops)

    try:
        ep = torch.export.load(str(pt2))
        torch.onnx.export(ep, (), str(out), dynamo=True, opset_version=opset, external_data=False,
                          verify=False, report=False)
    except Exception as e:  # the exporter's own refusal: the ops it names, else its first line
        import re

        text = re.sub(r"\x1b\[[0-9;]*m", "", str(e) + str(e.__cause__ or ""))  # the exporter's colours
        named = sorted(set(re.findall(r"(?:quantized_decomposed|torchao)\.[A-Za-z_0-9]+(?:\.[A-Za-z_0-9]+)?", text)))
        return "fails: " + (", ".join(named) if named else (text.strip().splitlines() or [type(e).__name__])[0][:110])
    try:
        return f"ok, {fmt(*worst(ort_run(out, io, False), io, steps))}, {out.stat().st_size / 1024:.1f} kB"
    except Exception as e:
        return "exports; onnxruntime fails: " + str(e).strip().splitlines()[0][:90]


def llama_decode(exe, tmp: Path, steps=16):
    """A tiny Llama (transformers, 2 layers, hidden 64, vocab 256) with torchao int4 weight-only
    in groups of 32 on every Linear, exported with a dynamic sequence: its ONNX size (standard and
    --matmul-nbits) against the float model's, and whether a greedy decode of `steps` tokens in
    onnxruntime (the whole sequence each step, optimizations off and on) gives torch's tokens."""
    import copy

    import torch
    import torchao.quantization as tq
    from torchao.utils import unwrap_tensor_subclass
    from transformers import LlamaConfig, LlamaForCausalLM

    class Logits(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, ids):
            return self.m(input_ids=ids, use_cache=False).logits

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64, use_cache=False)
    model = LlamaForCausalLM(cfg).eval()
    quantized = copy.deepcopy(model)
    tq.quantize_(quantized, tq.IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=tq.PerGroup(32)))
    quantized = Logits(unwrap_tensor_subclass(quantized)).eval()
    ids = torch.randint(0, 256, (1, 8))
    dims = {"ids": {1: torch.export.Dim("seq", min=2, max=48)}}
    torch.export.save(torch.export.export(quantized, (ids,), dynamic_shapes=dims), str(tmp / "llama_int4.pt2"))
    torch.export.save(torch.export.export(Logits(model).eval(), (ids,), dynamic_shapes=dims), str(tmp / "llama.pt2"))
    want = ids.clone()
    with torch.no_grad():
        for _ in range(steps):
            want = torch.cat([want, quantized(want)[:, -1].argmax(-1, keepdim=True)], 1)
    want = want.numpy()
    float_path, _ = convert(exe, tmp / "llama.pt2", tmp / "llama.onnx", 21)
    lines = [f"tiny Llama, int4 weight-only (groups of 32), opset 21: float ONNX {float_path.stat().st_size / 1024:.1f} kB; "
             f"torch's {steps} greedy tokens {want[0, 8:].tolist()}"]
    import onnxruntime as ort

    for label, extra in (("standard", ()), ("--matmul-nbits", ("--matmul-nbits",))):
        path, err = convert(exe, tmp / "llama_int4.pt2", tmp / f"llama_int4{len(extra)}.onnx", 21, extra)
        if not path:
            lines.append(f"  {label}: refused: {err}")
            continue
        results = []
        for optimize in (False, True):
            so = ort.SessionOptions()
            so.log_severity_level = 3
            so.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize
                                           else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
            sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
            got = ids.numpy()
            for _ in range(steps):
                logits = sess.run(None, {sess.get_inputs()[0].name: got})[0]
                got = np.concatenate([got, logits[:, -1].argmax(-1)[:, None]], 1)
            results.append(("optimized" if optimize else "no opt") + (": tokens equal" if np.array_equal(got, want)
                                                                       else f": tokens differ {got[0, 8:].tolist()}"))
        lines.append(f"  {label}: {path.stat().st_size / 1024:.1f} kB, {', '.join(results)}")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pt2onnx", required=True, type=Path)
    ap.add_argument("--samples", type=Path, default=Path(__file__).resolve().parent.parent / "samples" / "quant")
    ap.add_argument("--only", default="")
    ap.add_argument("--llama", action="store_true", help="also the tiny Llama int4 decode (needs transformers)")
    args = ap.parse_args(argv)
    manifest = json.loads((args.samples / "quant_samples.json").read_text())
    names = [n for n in args.only.split(",") if n] or list(manifest)
    rows = []
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td)
        for name in names:
            spec = manifest[name]
            io = np.load(args.samples / f"{name}.io.npz")
            opset = max(spec["opset"], spec.get("refused_below") or 0)
            variants = [("", ())] + ([(" --matmul-nbits", ("--matmul-nbits",))] if spec.get("matmul_nbits") else [])
            float_path, _ = convert(args.pt2onnx, args.samples / f"{name}.float.pt2", tmp / f"{name}.float.onnx", opset)
            float_kb = float_path.stat().st_size / 1024 if float_path else float("nan")
            theirs = torch_onnx(args.samples / f"{name}.pt2", tmp / f"{name}.torch.onnx", opset, io, spec["steps"])
            for label, extra in variants:
                path, err = convert(args.pt2onnx, args.samples / f"{name}.pt2", tmp / f"{name}{label.strip()}.onnx", opset, extra)
                if not path:
                    rows.append([name + label, str(opset), "refused: " + err, "", "", "", "", theirs])
                    continue
                ops = ops_of(path)
                q_ops = sorted(op for op in ops if "quantize" in op.lower() or "MatMulNBits" in op or op in ("MatMul", "Gemm", "Conv", "Round"))
                ref = fmt(*worst(ort_run(path, io, False), io, spec["steps"]))
                saved = tmp / f"{name}{label.strip()}.ort.onnx"
                kernels = fmt(*worst(ort_run(path, io, True, saved), io, spec["steps"]))
                fused = sorted({n for n in ops_of(saved) if n.split(".")[-1] in
                                ("QLinearConv", "QGemm", "QLinearMatMul", "MatMulInteger", "ConvInteger",
                                 "MatMulIntegerToFloat", "DynamicQuantizeMatMul", "MatMulNBits")})
                rows.append([name + label, str(opset), ", ".join(f"{op} x{ops[op]}" for op in q_ops), ref,
                             kernels + (" (" + ", ".join(fused) + ")" if fused else ""),
                             f"{path.stat().st_size / 1024:.1f} / {float_kb:.1f} kB", theirs])
        llama = llama_decode(args.pt2onnx, tmp) if args.llama else []
    header = ["sample", "opset", "pt2onnx ONNX ops (quantization, matmul/conv)", "error, ORT no opt (steps / abs)",
              "error, ORT optimized (kernels)", "size q / float", "torch.onnx on the same .pt2"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print("\n".join(llama))


if __name__ == "__main__":
    main()
