#!/usr/bin/env python3
"""Run time of a real-size quantized CNN beside its float model (issue 32's "must show"; tooling,
not CI). torchvision's ResNet-18 (random weights, nothing downloaded; batch norms folded into the
convolutions, each ReLU call its own function call) quantized by PT2E with
torchao's X86InductorQuantizer (prepare_pt2e, a few calibration batches, convert_pt2e), exported,
and the float model exported too; both converted by pt2onnx; both run in onnxruntime with every
optimization, the optimized quantized model (SessionOptions.optimized_model_filepath) listed to
show the integer kernels (QLinearConv); then the median wall of --runs calls of each, alternating
quantized and float call by call so that both see the same machine load, with a fixed thread count
(--threads). Prints sizes, kernels, each model's error against torch's eager output on the same
input (onnxruntime with optimizations off: the ONNX as written; on: its integer kernels), the
medians and the load average before and after. --quantizer xnnpack quantizes with the XNNPACK
quantizer instead (int8, every conv output and add quantized).

Usage (the torch venv with torchao, `scripts/torch_venv.sh 2.15 --quant`; it has onnxruntime):
    python scripts/quant_resnet_runtime.py --pt2onnx build/pt2onnx [--model resnet18] [--threads 1] [--runs 30]
"""
from __future__ import annotations

import argparse
import collections
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import torch


def fold_batch_norms(model):
    """Each BatchNorm2d folded into the Conv2d registered just before it (torchvision's ResNets
    register them in pairs), as an inference deployment does."""
    from torch.nn.utils.fusion import fuse_conv_bn_eval

    for module in model.modules():
        names = list(module._modules)
        for prev, name in zip(names, names[1:]):
            conv, bn = module._modules[prev], module._modules[name]
            if isinstance(conv, torch.nn.Conv2d) and isinstance(bn, torch.nn.BatchNorm2d):
                module._modules[prev] = fuse_conv_bn_eval(conv, bn)
                module._modules[name] = torch.nn.Identity()
    return model


class FunctionalReLU(torch.nn.Module):
    """F.relu per call: torchvision's blocks call one nn.ReLU twice, which the quantizer's
    partitioning sees as one partition with two outputs ("Input partition has more than one
    output node"); a function call is a partition of its own."""

    def forward(self, x):
        return torch.nn.functional.relu(x)


def separate_relus(model):
    for module in model.modules():
        for name, child in list(module._modules.items()):
            if isinstance(child, torch.nn.ReLU):
                module._modules[name] = FunctionalReLU()
    return model


def make_quantizer(name):
    if name == "xnnpack":
        from torchao.testing.pt2e._xnnpack_quantizer import XNNPACKQuantizer, get_symmetric_quantization_config

        return XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    import torchao.quantization.pt2e.quantizer.x86_inductor_quantizer as xiq

    return xiq.X86InductorQuantizer().set_global(xiq.get_default_x86_inductor_quantization_config())


def quantized_program(model, x, calibration, quantizer):
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    prepared = prepare_pt2e(torch.export.export(model, (x,)).module(), quantizer)
    with torch.no_grad():
        for batch in calibration:
            prepared(batch)
    return convert_pt2e(prepared)


def resnet_and_inputs(name):
    """torchvision's `name` (random weights, batch norms folded, ReLUs separate), an input and four
    calibration batches, all seeded: the model both this script and quant_error_trace.py quantize."""
    import torchvision

    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = separate_relus(fold_batch_norms(getattr(torchvision.models, name)(weights=None).eval()))
    x = torch.randn(1, 3, 224, 224, generator=gen)
    calibration = [torch.randn(1, 3, 224, 224, generator=gen) for _ in range(4)]
    return model, x, calibration


def session(path: Path, threads: int, optimized: Path | None = None, optimize: bool = True):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize
                                   else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    if optimized:
        so.optimized_model_filepath = str(optimized)
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pt2onnx", default="build/pt2onnx")
    ap.add_argument("--model", default="resnet18", help="a torchvision classification model (resnet18, resnet50)")
    ap.add_argument("--quantizer", choices=("x86", "xnnpack"), default="x86",
                    help="X86InductorQuantizer (uint8 activations; a conv feeding an add keeps a float output) "
                         "or the XNNPACK quantizer (int8, every conv output and add quantized)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--opset", type=int, default=18)
    args = ap.parse_args()
    import onnx

    model, x, calibration = resnet_and_inputs(args.model)
    t0 = time.perf_counter()
    quantized = quantized_program(model, x, calibration, make_quantizer(args.quantizer))
    with torch.no_grad():
        want = {"quantized": quantized(x).numpy(), "float": model(x).numpy()}
    print(f"{args.model}: PT2E {args.quantizer} quantizer, quantization {time.perf_counter() - t0:.0f} s; "
          f"torch {torch.__version__}, opset {args.opset}, onnxruntime threads {args.threads}")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        sessions, rows = {}, []
        for kind, module in (("quantized", quantized), ("float", model)):
            pt2, out = tmp / f"{kind}.pt2", tmp / f"{kind}.onnx"
            torch.export.save(torch.export.export(module, (x,)), str(pt2))
            t0 = time.perf_counter()
            r = subprocess.run([args.pt2onnx, str(pt2), "-o", str(out), "--opset", str(args.opset), "-q"],
                               capture_output=True, text=True)
            if r.returncode:
                print(f"{kind}: pt2onnx exit {r.returncode}: {r.stderr.strip()}")
                return 1
            convert_s = time.perf_counter() - t0
            optimized = tmp / f"{kind}.opt.onnx"
            sessions[kind] = session(out, args.threads, optimized)
            feeds = {sessions[kind].get_inputs()[0].name: x.numpy()}
            got = sessions[kind].run(None, feeds)[0]
            reference = session(out, args.threads, optimize=False).run(None, feeds)[0]  # the ONNX as written
            kernels = collections.Counter(n.op_type for n in onnx.load(str(optimized)).graph.node)
            top = ", ".join(f"{op} x{c}" for op, c in kernels.most_common(6))
            rows.append((kind, pt2.stat().st_size, out.stat().st_size, convert_s,
                         float(np.abs(reference - want[kind]).max()), float(np.abs(got - want[kind]).max()),
                         float(np.abs(want[kind]).max()), top))
        for kind, pt2_size, onnx_size, convert_s, ref_err, err, scale, top in rows:
            print(f"  {kind:9s} .pt2 {pt2_size / 2**20:6.1f} MiB  .onnx {onnx_size / 2**20:6.1f} MiB  convert {convert_s:4.1f} s  "
                  f"max |ort - torch| optimizations off {ref_err:.3g}, on {err:.3g} (outputs up to {scale:.3g})")
            print(f"            optimized model's most used ops: {top}")
        feeds = {sessions["float"].get_inputs()[0].name: x.numpy()}
        walls = {k: [] for k in sessions}
        for sess in sessions.values():
            sess.run(None, feeds)  # warm-up
        load_before = os.getloadavg()
        for _ in range(args.runs):
            for kind, sess in sessions.items():
                t0 = time.perf_counter()
                sess.run(None, feeds)
                walls[kind].append(time.perf_counter() - t0)
        load_after = os.getloadavg()
        q, f = statistics.median(walls["quantized"]), statistics.median(walls["float"])
        print(f"  median of {args.runs} calls (alternating), {args.threads} thread(s): quantized {q * 1e3:.1f} ms, "
              f"float {f * 1e3:.1f} ms, quantized / float {q / f:.2f}x "
              f"(min {min(walls['quantized']) * 1e3:.1f} / {min(walls['float']) * 1e3:.1f} ms)")
        print(f"  load average (1, 5, 15 min) before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
              f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}; {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
