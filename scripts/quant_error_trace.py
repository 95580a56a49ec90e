#!/usr/bin/env python3
"""Where a PT2E-quantized CNN's ONNX departs from torch, layer by layer (issue 32; tooling, not CI).

torchvision's ResNet (random weights, batch norms folded, as scripts/quant_resnet_runtime.py makes
it) is quantized by PT2E, exported and converted by pt2onnx; onnxruntime runs the ONNX as written
(optimizations off). Every QuantizeLinear output is made a graph output and compared with the
output of the quantize op of the same name in torch (the exported program run node by node), in
quantization steps: for each quantized tensor, the elements that differ and the largest difference.

Then the same ONNX with each QuantizeLinear(x, s, z) rewritten as QuantizeLinear(x * (1 / s), 1, z),
with 1 / s computed in float32 as torch does: torch's quantize_per_tensor multiplies by the
reciprocal of the scale, where QuantizeLinear divides by it, and the two round apart on ties. If the
rewritten model matches torch exactly, the division is the whole cause of the logits' error.

Usage (the torch venv with torchao, `scripts/torch_venv.sh 2.15 --quant`):
    python scripts/quant_error_trace.py --pt2onnx build/pt2onnx [--model resnet18] [--quantizer x86]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from quant_resnet_runtime import make_quantizer, quantized_program, resnet_and_inputs, session  # noqa: E402

QUANTIZE = "quantized_decomposed.quantize_per_tensor.default"


def torch_quantized_values(gm, x):
    """For every quantize_per_tensor node of `gm` on input `x`, by node name: its output, its float
    input, and its scale."""
    seen = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            if n.op == "call_function" and str(n.target) == QUANTIZE:
                inp, scale = self.env[n.args[0]], n.args[1]
                scale = float(scale) if not isinstance(scale, torch.fx.Node) else float(self.env[scale])
                seen[n.name] = (out.numpy(), inp.numpy(), scale)
            return out

    with torch.no_grad():
        Recorder(gm).run(x)
    return seen


def with_quantized_outputs(model, names):
    """`model` with the named QuantizeLinear outputs and their float inputs added as graph outputs."""
    import onnx

    produced = {n.output[0]: n for n in model.graph.node if n.op_type == "QuantizeLinear"}
    for name in names:
        node = produced[name]
        dtype = next(i for i in model.graph.initializer if i.name == node.input[2]).data_type
        model.graph.output.append(onnx.helper.make_tensor_value_info(name, dtype, None))
        model.graph.output.append(onnx.helper.make_tensor_value_info(node.input[0], onnx.TensorProto.FLOAT, None))
    return model


def reciprocal_quantize(model):
    """Each QuantizeLinear(x, s, z) as QuantizeLinear(Mul(x, 1 / s), 1, z): torch's arithmetic."""
    import onnx
    from onnx import numpy_helper

    inits = {i.name: i for i in model.graph.initializer}
    nodes = []
    for n in model.graph.node:
        if n.op_type == "QuantizeLinear" and n.input[1] in inits:
            scale = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)
            inv = np.float32(1) / scale
            inv_name, one_name, scaled = f"{n.output[0]}__inv", f"{n.output[0]}__one", f"{n.output[0]}__scaled"
            model.graph.initializer.extend([numpy_helper.from_array(inv, inv_name),
                                            numpy_helper.from_array(np.ones_like(scale), one_name)])
            nodes.append(onnx.helper.make_node("Mul", [n.input[0], inv_name], [scaled]))
            n.input[0], n.input[1] = scaled, one_name
        nodes.append(n)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return model


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pt2onnx", default="build/pt2onnx")
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--quantizer", choices=("x86", "xnnpack"), default="x86")
    ap.add_argument("--opset", type=int, default=18)
    args = ap.parse_args()
    import onnx

    model, x, calibration = resnet_and_inputs(args.model)
    ep = torch.export.export(quantized_program(model, x, calibration, make_quantizer(args.quantizer)), (x,))
    gm = ep.module()
    with torch.no_grad():
        want = gm(x).numpy()
    q_torch = torch_quantized_values(gm, x)
    print(f"{args.model}, PT2E {args.quantizer} quantizer, torch {torch.__version__}, opset {args.opset}: "
          f"{len(q_torch)} quantized tensors; logits up to {np.abs(want).max():.3g}")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        pt2, out = tmp / "q.pt2", tmp / "q.onnx"
        torch.export.save(ep, str(pt2))
        r = subprocess.run([args.pt2onnx, str(pt2), "-o", str(out), "--opset", str(args.opset), "-q"],
                           capture_output=True, text=True)
        if r.returncode:
            print(f"pt2onnx exit {r.returncode}: {r.stderr.strip()}")
            return 1
        base = onnx.load(str(out))
        names = [n.output[0] for n in base.graph.node if n.op_type == "QuantizeLinear" and n.output[0] in q_torch]
        missing = sorted(set(q_torch) - set(names))
        if missing:
            print(f"  {len(missing)} quantize ops of torch have no QuantizeLinear of the same name: {missing[:5]}")
        for label, onnx_model in (("as written (QuantizeLinear divides by the scale)", base),
                                  ("rewritten to multiply by the reciprocal, as torch", reciprocal_quantize(onnx.load(str(out))))):
            path = tmp / "traced.onnx"
            onnx.save(with_quantized_outputs(onnx_model, names), str(path))
            sess = session(path, 1, optimize=False)
            got = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {sess.get_inputs()[0].name: x.numpy()})))
            logits = got[sess.get_outputs()[0].name]
            print(f"  {label}: max |ort - torch| of the logits {np.abs(logits - want).max():.3g}")
            produced = {n.output[0]: n for n in onnx_model.graph.node if n.op_type == "QuantizeLinear"}
            first, worst, differ = None, 0, 0
            for name in names:
                want_q, want_in, scale = q_torch[name]
                d = np.abs(got[name].astype(np.int32) - want_q.astype(np.int32))
                worst, differ = max(worst, int(d.max())), differ + bool(d.max())
                if d.max() and first is None:
                    # the float input of the quantization, in steps: how far apart the two
                    # computations are, and how near torch's value lies to a rounding boundary
                    ort_in = got[produced[name].input[0]] if label.startswith("as written") else None
                    gap = float(np.abs(ort_in - want_in).max() / scale) if ort_in is not None else float("nan")
                    t = want_in[d > 0] / scale
                    boundary = float(np.abs(np.abs(t - np.floor(t)) - 0.5).max())
                    first = (name, int((d > 0).sum()), d.size, int(d.max()), gap, boundary)
            print(f"    quantized tensors that differ: {differ} of {len(names)}; largest difference {worst} steps")
            if first:
                gap = "" if first[4] != first[4] else f"its float input differs by up to {first[4]:.2g} steps, and "
                print(f"    first in graph order: {first[0]}: {first[1]} of {first[2]} elements, up to {first[3]} step(s); "
                      f"{gap}torch's value of each differing element lies within {first[5]:.2g} steps of a rounding boundary")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
