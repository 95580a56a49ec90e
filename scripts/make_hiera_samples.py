#!/usr/bin/env python3
"""Makes the hierarchy and config-rule samples in samples/hiera/ with real torch 2.15 (tooling only).

Each model below exists to exercise `--hiera` or a `--config` rule on a real torch.export program:

- `two_level`: an outer type (`Block`, used twice) holding an inner type (`Scale`, used twice per
  block) whose instances differ only by a constant (a Python float multiplied in), so the inner
  type needs two functions and the outer one exactly one.
- `resnet`: a small ResNet of `BasicBlock`s (identity blocks and a strided block with a downsample
  branch), dynamic batch.
- `vit`: a small ViT (patch embedding, class token, two `EncoderBlock`s of pre-norm attention and
  a GELU MLP), dynamic batch.
- `custom_op`: calls `pt2onnx_test::scaled_tanh`, a `torch.library` custom op that no built-in rule
  knows; `samples/hiera/*.config.json` map it (the configs are written by hand, not here).

Every model is exported in the default IR (`<model>.default.pt2`) and in core ATen IR
(`<model>.core.pt2`, ep.run_decompositions()). Next to each archive, `<stem>.io.npz` holds the
inputs (`input_<i>`) and torch eager outputs (`output_<i>`), and for dynamic models a second set at
another batch size (`b2_input_<i>`, `b2_output_<i>`). The exported program must agree with eager
torch before anything is written. samples/hiera/MANIFEST.json lists the files (the tests read it).
The saving helpers are make_samples.py's (stable provenance ids, write only when bytes change).

Usage: python make_hiera_samples.py [--out samples/hiera] [--only resnet,vit]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_samples as ms  # noqa: E402  (shared saving helpers)

SEED = 20241130


# ----------------------------------------------------------------------------------------------
# The custom op: known to torch through torch.library, unknown to every built-in rule.
# ----------------------------------------------------------------------------------------------


@torch.library.custom_op("pt2onnx_test::scaled_tanh", mutates_args=())
def scaled_tanh(x: torch.Tensor, alpha: float) -> torch.Tensor:
    return torch.tanh(x) * alpha


@scaled_tanh.register_fake
def _scaled_tanh_fake(x, alpha):
    return torch.empty_like(x)


# ----------------------------------------------------------------------------------------------
# Models
# ----------------------------------------------------------------------------------------------


class Scale(nn.Module):
    """Linear, then a multiply by a constant fixed at construction (baked into the graph)."""

    def __init__(self, dim, factor):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.factor = factor

    def forward(self, x):
        return self.lin(x) * self.factor


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.shrink = Scale(dim, 0.5)
        self.grow = Scale(dim, 2.0)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        return self.norm(x + self.grow(torch.relu(self.shrink(x))))


class TwoLevel(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim), Block(dim)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class BasicBlock(nn.Module):
    """torchvision's BasicBlock shape: conv-bn-relu-conv-bn, plus identity or a 1x1 downsample."""

    def __init__(self, c_in, c_out, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.downsample = None
        if stride != 1 or c_in != c_out:
            self.downsample = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride=stride, bias=False), nn.BatchNorm2d(c_out))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)


class SmallResNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.layer1 = nn.Sequential(BasicBlock(8, 8), BasicBlock(8, 8))
        self.layer2 = nn.Sequential(BasicBlock(8, 16, stride=2), BasicBlock(16, 16))
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class EncoderBlock(nn.Module):
    """Pre-norm ViT encoder block: attention (SDPA) and a GELU MLP, each with a residual."""

    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        b, t, d = x.shape
        qkv = self.qkv(self.norm1(x)).reshape(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        o = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(o)
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class SmallViT(nn.Module):
    def __init__(self, image=16, patch=4, dim=32, heads=4, hidden=64, depth=2, classes=10):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, patch, stride=patch)
        tokens = (image // patch) ** 2 + 1
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, tokens, dim) * 0.02)
        self.blocks = nn.Sequential(*[EncoderBlock(dim, heads, hidden) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


class CustomOpModel(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.fc1 = nn.Linear(dim, dim)
        self.fc2 = nn.Linear(dim, dim)

    def forward(self, x):
        return self.fc2(torch.ops.pt2onnx_test.scaled_tanh(self.fc1(x), 1.5))


# ----------------------------------------------------------------------------------------------
# Builders: module, inputs, dynamic shapes (and a second input set at another batch size)
# ----------------------------------------------------------------------------------------------


def _gen(name):
    return torch.Generator().manual_seed(SEED + sum(map(ord, name)))


def _seeded(module, name):
    gen = _gen(name)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.2)
    ms._randomize_batchnorm(module, gen)
    return module.eval(), gen


def build_two_level():
    module, gen = _seeded(TwoLevel(), "two_level")
    batch = Dim("batch", min=1, max=64)
    return {"module": module, "inputs": (torch.randn(3, 16, generator=gen),),
            "inputs_b2": (torch.randn(5, 16, generator=gen),), "dynamic_shapes": {"x": {0: batch}}}


def build_resnet():
    module, gen = _seeded(SmallResNet(), "resnet")
    batch = Dim("batch", min=1, max=64)
    return {"module": module, "inputs": (torch.randn(2, 3, 16, 16, generator=gen),),
            "inputs_b2": (torch.randn(3, 3, 16, 16, generator=gen),), "dynamic_shapes": {"x": {0: batch}}}


def build_vit():
    module, gen = _seeded(SmallViT(), "vit")
    batch = Dim("batch", min=1, max=64)
    return {"module": module, "inputs": (torch.randn(2, 3, 16, 16, generator=gen),),
            "inputs_b2": (torch.randn(3, 3, 16, 16, generator=gen),), "dynamic_shapes": {"x": {0: batch}}}


def build_custom_op():
    module, gen = _seeded(CustomOpModel(), "custom_op")
    # No built-in rule knows the op: the model tests convert it with this config.
    return {"module": module, "inputs": (torch.randn(4, 16, generator=gen),), "config": "custom_op.config.json"}


MODELS = {"two_level": build_two_level, "resnet": build_resnet, "vit": build_vit, "custom_op": build_custom_op}


def make_one(model: str, ir: str, out_dir: Path):
    spec = MODELS[model]()
    module, inputs = spec["module"], spec["inputs"]
    ep = torch.export.export(module, inputs, dynamic_shapes=spec.get("dynamic_shapes"))
    if ir == "core":
        ep = ep.run_decompositions()
    stem = f"{model}.{ir}"
    pt2, npz = out_dir / f"{stem}.pt2", out_dir / f"{stem}.io.npz"
    ms._stabilize_provenance(ep)
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td) / pt2.name  # torch.export.save names the archive folder after the file stem
        torch.export.save(ep, str(tmp))
        data = tmp.read_bytes()
    if not (pt2.exists() and ms._zip_content(pt2.read_bytes()) == ms._zip_content(data)):
        ms._write_if_changed(pt2, data)

    arrays = {}
    sets = [("", inputs)] + ([("b2_", spec["inputs_b2"])] if "inputs_b2" in spec else [])
    for prefix, ins in sets:
        eager = ms._eager(module, ins)
        with torch.no_grad():
            exported = [ms._np(t) for t in ms._flat_tensors(ep.module()(*ins))]
        for e, x in zip(eager, exported):
            np.testing.assert_allclose(x, e, rtol=1e-5, atol=1e-6)
        arrays.update({f"{prefix}input_{i}": ms._np(t) for i, t in enumerate(ins)})
        arrays.update({f"{prefix}output_{i}": o for i, o in enumerate(eager)})
    ms._write_if_changed(npz, ms._npz_bytes(arrays))
    targets = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})
    print(f"  {pt2.name}: {pt2.stat().st_size} bytes, {len(targets)} distinct ops")
    # The fields tests/models/run_model_tests.py reads (it checks every MANIFEST.json below samples/).
    user_in, user_out = ms._signature_names(ep)
    entry = {"file": pt2.name, "io_file": npz.name, "model": model, "ir": ir,
             "torch_version": torch.__version__, "has_second_batch": "inputs_b2" in spec,
             "user_inputs": user_in, "user_outputs": user_out,
             "input_shapes": {user_in[i]: list(arrays[f"input_{i}"].shape) for i in range(len(inputs))},
             "range_constraints": {str(k): [str(v.lower), str(v.upper)] for k, v in ep.range_constraints.items()},
             "sha256": hashlib.sha256(pt2.read_bytes()).hexdigest(), "bytes": pt2.stat().st_size,
             "made_by": {"script": "scripts/make_hiera_samples.py", "function": MODELS[model].__name__}}
    if "config" in spec:
        entry["config"] = spec["config"]
    return stem, entry


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "samples" / "hiera")
    parser.add_argument("--only", default="", help="comma-separated models")
    args = parser.parse_args(argv)
    torch.manual_seed(SEED)
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = [m for m in args.only.split(",") if m] or list(MODELS)
    man_path = args.out / "MANIFEST.json"
    manifest = json.loads(man_path.read_text()) if man_path.exists() else {"samples": {}}
    for model in wanted:
        for ir in ("default", "core"):
            stem, entry = make_one(model, ir, args.out)
            manifest["samples"][stem] = entry
    manifest["samples"] = dict(sorted(manifest["samples"].items()))
    ms._write_if_changed(man_path, (json.dumps(manifest, indent=2) + "\n").encode())


if __name__ == "__main__":
    main()
