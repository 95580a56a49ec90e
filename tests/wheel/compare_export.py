"""pt2onnx.export against torch.onnx.export(dynamo=True) on the same ExportedPrograms (issue 33;
needs the torch venv with torchvision and transformers, never run by CI). For each model: the
wall time of each exporter in this one run, both ONNX files run in onnxruntime against torch's
eager output, and pt2onnx.export's bytes against torch.export.save + pt2onnx.convert's.
Models are randomly initialised (no downloads).

Usage: PYTHONPATH=<unpacked wheel> python compare_export.py [OUT_DIR]
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch

import pt2onnx


def models():
    import torchvision
    import transformers

    torch.manual_seed(0)
    yield "resnet50", torchvision.models.resnet50().eval(), (torch.randn(1, 3, 224, 224),)
    vit = torchvision.models.vit_b_16().eval()
    with torch.no_grad():  # torchvision zero-initialises the head: every logit would be 0
        torch.nn.init.normal_(vit.heads.head.weight, std=0.02)
    yield "vit_b_16", vit, (torch.randn(1, 3, 224, 224),)
    llama = transformers.LlamaConfig(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2, use_cache=False)
    yield "tiny llama", transformers.LlamaForCausalLM(llama).eval(), (torch.randint(0, 1000, (2, 12)),)
    bert = transformers.BertConfig(vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                   num_attention_heads=4)
    yield "bert", transformers.BertModel(bert).eval(), (torch.randint(0, 1000, (2, 12)),)


def flat(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    return [t for o in out for t in flat(o)]


def max_error(path: Path, args, expected) -> float:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = session.run(None, {i.name: a.numpy() for i, a in zip(session.get_inputs(), args)})
    return max(float(np.max(np.abs(g - e.detach().numpy()))) for g, e in zip(got, expected))


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="pt2onnx-export-"))
    out.mkdir(parents=True, exist_ok=True)
    print("| model | pt2onnx.export s | torch.onnx.export s | speed-up | pt2onnx max abs err | torch.onnx max abs err | same as save+convert |")
    print("|---|---|---|---|---|---|---|")
    for name, module, args in models():
        with torch.no_grad():
            expected = flat(module(*args))
            program = torch.export.export(module, args)
        tag = name.replace(" ", "_")
        start = time.perf_counter()
        pt2onnx.export(program, out / f"{tag}.pt2onnx.onnx")
        ours = time.perf_counter() - start
        start = time.perf_counter()
        torch.onnx.export(program, args, str(out / f"{tag}.torch.onnx"), dynamo=True, opset_version=18)
        theirs = time.perf_counter() - start
        torch.export.save(program, out / f"{tag}.pt2")
        pt2onnx.convert(out / f"{tag}.pt2", out / f"{tag}.convert.onnx")
        same = (out / f"{tag}.convert.onnx").read_bytes() == (out / f"{tag}.pt2onnx.onnx").read_bytes()
        print(f"| {name} | {ours:.2f} | {theirs:.2f} | {theirs / ours:.0f}x | "
              f"{max_error(out / f'{tag}.pt2onnx.onnx', args, expected):.1e} | "
              f"{max_error(out / f'{tag}.torch.onnx', args, expected):.1e} | {same} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
