#!/usr/bin/env python3
"""Reference inputs and outputs for the --compile kernel bundles, computed by torch.

For each (sample, module types) run below, converts the sample with `pt2onnx --compile`, reads
each bundle's manifest, and for every call site of the function evaluates the torch module
instance (rebuilt by scripts/make_samples.py's builder, eval mode, CPU, float32) on seeded
random activations. Parameters and buffers are the instance's own; they are passed to the
function as its weight inputs. Symbols that only activations carry (dynamic dims) are tried at
two sizes each. Writes samples/kernels/<sample>.<Function>.io.npz with, per case k:
  case<k>.symbols   strings "NAME=VALUE" for every manifest symbol
  case<k>.in.<i> / case<k>.out.<j>   the i-th input and j-th output of the function, in the
                    manifest's dtype and shape (an input equal to case 0's is stored only there)
Run under the torch venv: scripts/torch_venv.sh 2.15 then
  <venv>/bin/python scripts/make_kernel_refs.py --pt2onnx build/pt2onnx
"""
from __future__ import annotations

import argparse
import inspect
import io
import itertools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import make_samples  # noqa: E402

# (sample stem, builder name, module types, sizes tried for each activation-only symbol).
RUNS = [
    ("decoder.default", "decoder", ["DecoderAttention", "RMSNorm", "GatedMLP", "LayerNorm", "Embedding"], ()),
    ("decoder.default", "decoder", ["DecoderLayer"], ()),
    # RMSNorm is called only inside DecoderLayer here: its bundle's types come from those calls
    # (the sites name the layer's weights, so the module is found as for main-graph calls).
    ("decoder.core", "decoder", ["DecoderLayer", "LayerNorm", "RMSNorm"], ()),
    ("mlp_dynamic.default", "mlp_dynamic", ["Linear"], (3, 61)),
    # Wider than a GEMM tile and a reduction block, with a dynamic sequence length.
    ("wide.default", "wide", ["DecoderAttention", "GatedMLP", "LayerNorm", "RMSNorm"], (5, 300)),
    # Boolean attention mask (a function input), one query row masked entirely: the masked form
    # of the fused attention kernel and its zero rows.
    ("attention.default", "attention", ["SelfAttention"], ()),
    # Float additive mask (0 / -inf, made from a boolean input inside the module), 40 keys and
    # query rows: the Add form over two key blocks and two query tiles, one row fully masked.
    ("float_mask.default", "float_mask", ["FloatMaskAttention"], ()),
    # The decoder converted to fp16 / bf16 before export: 16-bit storage, fp32 compute, against
    # torch's own fp16 / bf16 results.
    ("decoder_fp16.default", "decoder_fp16", ["DecoderAttention", "GatedMLP", "RMSNorm"], ()),
    ("decoder_bf16.default", "decoder_bf16", ["DecoderAttention", "GatedMLP", "RMSNorm"], ()),
    # The same with a dynamic sequence length, at two sizes (a partial and a full 16-row RoPE table).
    ("decoder_fp16_dynamic.default", "decoder_fp16_dynamic", ["DecoderAttention", "GatedMLP", "RMSNorm"], (3, 16)),
    ("decoder_bf16_dynamic.default", "decoder_bf16_dynamic", ["DecoderAttention", "GatedMLP", "RMSNorm"], (3, 16)),
    # Conv (1-D and 2-D, groups, dilation, stride, padding), pooling and Split, with dynamic
    # spatial sizes tried at 9 and 20 (odd and even; windows that hit the padding).
    ("convnet.default", "convnet", ["Conv1dBlock", "GroupedConv2d", "PoolBlock", "SplitMix"], (9, 20)),
    # Two Conv2d instances of different channel counts share a function (symbolic channels);
    # the BatchNorm-folded one gets its own.
    ("cnn.default", "cnn", ["Conv2d"], (8, 16)),
    # Tensor-core GEMM edges: K = 100 and 72 (partial K tiles; weight rows 200 bytes apart, so
    # only every other one is 16-byte aligned for cp.async), N = 72 and 40, M = 3 and 130 rows
    # (one partial tile, and three tiles), a bias + GELU epilogue; fp16 and bf16.
    ("odd_mlp_fp16_dynamic.default", "odd_mlp_fp16_dynamic", ["OddMLP"], (3, 130)),
    # A wide block in fp16: the tensor-core attention at head dim 64 (four k16 steps, eight
    # P x V tiles) over three key blocks and three query tiles at sequence 70, GEMMs of 2-3 K tiles.
    ("wide_fp16.default", "wide_fp16", ["DecoderAttention", "GatedMLP"], (5, 70)),
    ("odd_mlp_bf16_dynamic.default", "odd_mlp_bf16_dynamic", ["OddMLP"], (3, 130)),
    # GatedScale is called only inside TwinBlock, at widths 32 and 16: one bundle per input
    # signature (GatedScale_s0, GatedScale_s1), each with static shapes.
    ("twin.default", "twin", ["TwinBlock", "GatedScale"], ()),
    # torch.gather (GatherElements), running sums over a dynamic sequence in float and int64
    # (CumSum: the loop runs to each element's own position) and two index tensors into a table
    # (GatherND), at sequence lengths 3 and 20.
    ("indexing.default", "indexing", ["PickAndScan", "PairPick"], (3, 20)),
    # Pad in its three opset-18 modes over dynamic height and width (5 and 9): constant with a
    # value and with a negative (cropping) pad, reflect, edge (replicate); circular becomes a
    # Concat at opset 18.
    ("padding.default", "padding", ["PadBlock"], (5, 9)),
    # Resize as torch's upsampling makes it: nearest and bilinear (half-pixel and align_corners)
    # by a factor of 2 over dynamic height and width (5 and 9), to a fixed size (up and down).
    ("resizing.default", "resizing", ["UpBlock"], (5, 9)),
    # argmax/argmin (with and without keepdim), repeat (Tile), triu/tril (Trilu) and topk
    # (largest along the features, smallest along the sequence, a stable sort with ties) over a
    # dynamic sequence at 3 and 20.
    ("selecting.default", "selecting", ["SelectBlock"], (3, 20)),
    # scatter to distinct positions (ScatterElements), scatter_add with repeated positions
    # (reduction add) over a dynamic sequence at 3 and 20, and index_put with accumulation by one
    # and by two index tensors (ScatterND with one and two index columns, add).
    ("scattering.default", "scattering", ["ScatterBlock"], (3, 20)),
]


class WideBlock(torch.nn.Module):
    """The decoder's pieces at sizes past one 64x64 GEMM tile and one 256-thread row block."""

    def __init__(self, dim=192, heads=3, hidden=320, max_seq=320):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)
        self.attn = make_samples.DecoderAttention(dim, heads, max_seq)
        self.mlp_norm = make_samples.RMSNorm(dim)
        self.mlp = make_samples.GatedMLP(dim, hidden)

    def forward(self, x):
        x = x + self.attn(self.norm(x))
        return x + self.mlp(self.mlp_norm(x))


def build_wide():
    torch.manual_seed(make_samples.SEED)
    m = WideBlock().eval()
    x = torch.randn(2, 40, 192, generator=torch.Generator().manual_seed(make_samples.SEED + 9))
    return {"module": m, "inputs": (x,), "dynamic_shapes": {"x": {1: torch.export.Dim("seq", min=2, max=320)}}}


class FloatMaskAttention(make_samples.SelfAttention):
    """SelfAttention whose SDPA gets a float mask: 0 where `mask` is True, -inf elsewhere. The mask
    comes first: the function reads it first, and references pass activations in that order."""

    def forward(self, mask, x):
        bias = torch.zeros(mask.shape, dtype=x.dtype).masked_fill(~mask, float("-inf"))
        return super().forward(x, bias)


def build_float_mask():
    torch.manual_seed(make_samples.SEED)
    gen = torch.Generator().manual_seed(make_samples.SEED + 11)
    t = 40
    mask = torch.rand(t, t, generator=gen) < 0.7
    x = torch.randn(2, t, 32, generator=gen)
    return {"module": FloatMaskAttention().eval(), "inputs": (mask, x)}


class Conv1dBlock(torch.nn.Module):
    """1-D convolution: stride 2, padding 2, dilation 2, bias; a ReLU after it."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(4, 8, 3, stride=2, padding=2, dilation=2)

    def forward(self, x):
        return torch.relu(self.conv(x))


class GroupedConv2d(torch.nn.Module):
    """2-D convolutions: two groups with per-axis stride, padding and dilation and a bias, then a
    depthwise 3x3 with a bias, then a 1x3 one with no bias; GELU between them."""

    def __init__(self):
        super().__init__()
        self.grouped = torch.nn.Conv2d(6, 8, 3, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)
        self.depthwise = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.wide = torch.nn.Conv2d(8, 5, (1, 3), bias=False)

    def forward(self, x):
        return self.wide(self.depthwise(torch.nn.functional.gelu(self.grouped(x))))


class PoolBlock(torch.nn.Module):
    """A 1x1 convolution, then max pooling (3, stride 2, padding 1), average pooling (2, stride 2,
    padding 1, padding not counted) and a global average; two outputs."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 1)

    def forward(self, x):
        m = torch.nn.functional.max_pool2d(self.conv(x), 3, stride=2, padding=1)
        a = torch.nn.functional.avg_pool2d(m, 2, stride=2, padding=1, count_include_pad=False)
        return m, torch.nn.functional.adaptive_avg_pool2d(a, 1)


class SplitMix(torch.nn.Module):
    """A projection split three ways (sizes 8, 16, 16) and in halves (chunk): two outputs."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 40)

    def forward(self, x):
        a, b, c = self.proj(x).split([8, 16, 16], dim=-1)
        lo, hi = c.chunk(2, dim=-1)
        return a * 2.0, torch.sigmoid(b) * torch.cat([hi, lo], dim=-1)


class ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = Conv1dBlock()
        self.c2 = GroupedConv2d()
        self.pool = PoolBlock()
        self.split = SplitMix()

    def forward(self, seq, img, rgb):
        y1 = self.c1(seq)
        s1, s2 = self.split(y1.transpose(1, 2))
        m, g = self.pool(rgb)
        return self.c2(img), m, g, s1, s2


class GatedScale(torch.nn.Module):
    """x * sigmoid(Linear(x)): a GEMM with its epilogue."""

    def __init__(self, dim):
        super().__init__()
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x):
        return x * torch.sigmoid(self.proj(x))


class TwinBlock(torch.nn.Module):
    """Two GatedScale of different widths: their calls have two input signatures."""

    def __init__(self):
        super().__init__()
        self.wide = GatedScale(32)
        self.narrow = GatedScale(16)

    def forward(self, x, y):
        return self.wide(x) + 1.0, self.narrow(y) * 2.0


class Twin(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = TwinBlock()

    def forward(self, x, y):
        return self.block(x, y)


def build_twin():
    torch.manual_seed(make_samples.SEED)
    gen = torch.Generator().manual_seed(make_samples.SEED + 17)
    return {"module": Twin().eval(), "inputs": (torch.randn(2, 8, 32, generator=gen), torch.randn(2, 4, 16, generator=gen))}


def build_convnet():
    torch.manual_seed(make_samples.SEED)
    gen = torch.Generator().manual_seed(make_samples.SEED + 13)
    inputs = (torch.randn(2, 4, 12, generator=gen), torch.randn(2, 6, 10, 11, generator=gen),
              torch.randn(2, 3, 10, 11, generator=gen))
    dyn = {"seq": {2: torch.export.Dim("length", min=8, max=64)},
           "img": {2: torch.export.Dim("h", min=8, max=64), 3: torch.export.Dim("w", min=8, max=64)},
           "rgb": {2: torch.export.Dim("rh", min=8, max=64), 3: torch.export.Dim("rw", min=8, max=64)}}
    return {"module": ConvNet().eval(), "inputs": inputs, "dynamic_shapes": dyn}


def build_wide_fp16():
    """A smaller wide block (dim 64, one head of 64, hidden 96) in fp16, sequence 2..80."""
    torch.manual_seed(make_samples.SEED)
    m = WideBlock(dim=64, heads=1, hidden=96, max_seq=80).to(torch.float16).eval()
    x = torch.randn(2, 40, 64, generator=torch.Generator().manual_seed(make_samples.SEED + 9)).to(torch.float16)
    return {"module": m, "inputs": (x,), "dynamic_shapes": {"x": {1: torch.export.Dim("seq", min=2, max=80)}}}


def build_decoder_as(dtype):
    def build():
        spec = make_samples.MODELS["decoder"]()
        spec["module"] = spec["module"].to(dtype).eval()
        return spec
    return build


def build_decoder_dynamic_as(dtype):
    def build():
        spec = build_decoder_as(dtype)()
        spec["dynamic_shapes"] = {"tokens": {1: torch.export.Dim("seq", min=2, max=16)}}
        return spec
    return build


class OddMLP(torch.nn.Module):
    """Linear(100, 72) -> GELU -> Linear(72, 40): sizes that are not multiples of the GEMM tiles."""

    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(100, 72)
        self.down = torch.nn.Linear(72, 40)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(x)))


class OddMLPModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = OddMLP()

    def forward(self, x):
        return self.mlp(x)


def build_odd_mlp_as(dtype):
    def build():
        torch.manual_seed(make_samples.SEED)
        m = OddMLPModel().to(dtype).eval()
        x = torch.randn(8, 100, generator=torch.Generator().manual_seed(make_samples.SEED + 13)).to(dtype)
        return {"module": m, "inputs": (x,), "dynamic_shapes": {"x": {0: torch.export.Dim("batch", min=2, max=256)}}}
    return build


class PickAndScan(torch.nn.Module):
    """Picks 4 of 16 projected features per position (torch.gather), sums the projection along
    the sequence, and numbers the unmasked positions (an int64 running sum, as position ids are)."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 16)

    def forward(self, x, idx, mask):
        y = self.proj(x)
        return torch.gather(y, -1, idx), y.cumsum(dim=1), mask.long().cumsum(-1) - 1


class PairPick(torch.nn.Module):
    """table[rows, cols]: two index tensors over the table's two leading dims."""

    def __init__(self):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(8, 12, 6))

    def forward(self, rows, cols):
        return self.table[rows, cols] * 2.0


class Indexing(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scan = PickAndScan()
        self.pair = PairPick()

    def forward(self, x, idx, mask, rows, cols):
        picked, running, positions = self.scan(x, idx, mask)
        return picked, running, positions, self.pair(rows, cols)


def build_indexing():
    torch.manual_seed(make_samples.SEED)
    gen = torch.Generator().manual_seed(make_samples.SEED + 19)
    inputs = (torch.randn(2, 10, 16, generator=gen), torch.randint(0, 16, (2, 10, 4), generator=gen),
              torch.rand(2, 10, generator=gen) < 0.7, torch.randint(0, 8, (2, 5), generator=gen),
              torch.randint(0, 12, (2, 5), generator=gen))
    seq = torch.export.Dim("seq", min=2, max=32)
    dyn = {"x": {1: seq}, "idx": {1: seq}, "mask": {1: seq}, "rows": None, "cols": None}
    return {"module": Indexing().eval(), "inputs": inputs, "dynamic_shapes": dyn}


class Holder(torch.nn.Module):
    """The root of a one-block sample; the block is the type given to --compile."""

    def __init__(self, block):
        super().__init__()
        self.block = block

    def forward(self, x):
        return self.block(x)


def build_held(block_type, shape, seed_offset, dims):
    """A builder of a one-block sample: a seeded input of `shape`, dynamic along `dims` ({axis: Dim})."""
    def build():
        torch.manual_seed(make_samples.SEED)
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(make_samples.SEED + seed_offset))
        return {"module": Holder(block_type()).eval(), "inputs": (x,), "dynamic_shapes": {"x": dims}}
    return build


class ScaledImage(torch.nn.Module):
    """A per-channel scale (the parameter that names the block's call site), then `forms` of the
    scaled image."""

    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.randn(3, 1, 1))

    def forward(self, x):
        return self.forms(x * self.scale, torch.nn.functional)


class PadBlock(ScaledImage):
    """The image padded five ways."""

    def forms(self, y, f):
        return (f.pad(y, (1, 2, 0, 3), value=0.5), f.pad(y, (-1, 2, 1, 0)), f.pad(y, (2, 1, 1, 2), mode="reflect"),
                f.pad(y, (1, 1, 2, 0), mode="replicate"), f.pad(y, (1, 2, 1, 0), mode="circular"))


class UpBlock(ScaledImage):
    """The image resampled five ways."""

    def forms(self, y, f):
        return (f.interpolate(y, scale_factor=2, mode="nearest"), f.interpolate(y, size=(7, 10), mode="nearest"),
                f.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False),
                f.interpolate(y, size=(7, 10), mode="bilinear", align_corners=True),
                f.interpolate(y, size=(3, 4), mode="bilinear", align_corners=False))


class SelectBlock(torch.nn.Module):
    """A projection, then its argmax and argmin, repeated, its upper and lower triangles, and its
    top 3 along the features and bottom 2 along the sequence, and stable sorts of its signs (ties)
    and of itself with NaN for values over 0.5 (values and indices)."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = self.proj(x)
        # In the order the results are made: the function's outputs follow it.
        picked = [y.argmax(-1), y.argmin(dim=1, keepdim=True), y.repeat(1, 2, 3), torch.triu(y, 1), torch.tril(y, -1)]
        picked.extend(torch.topk(y, 3, dim=-1))
        picked.extend(torch.topk(y, 2, dim=1, largest=False))
        picked.extend(torch.sort((y > 0).long(), dim=-1, stable=True))  # ties: equal keys keep their order
        picked.extend(torch.sort(torch.where(y > 0.5, torch.nan, y), dim=-1, stable=True))  # NaN sorts last
        return tuple(picked)


class ScatterBlock(torch.nn.Module):
    """A projection scattered into zeros at distinct positions and added into itself at drawn
    ones (which repeat); a table with rows added in at drawn (repeating) rows, and a grid with
    entries added in at drawn (row, column) pairs."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        self.table = torch.nn.Parameter(torch.randn(8, 6))
        self.grid = torch.nn.Parameter(torch.randn(8, 8, 3))

    def forward(self, x, idx, rows, cols):
        y = self.proj(x)
        spread = (torch.arange(4) * 2 + 1).expand(y.shape[0], y.shape[1], 4)
        return (torch.zeros_like(y).scatter(-1, spread, y[..., :4]), y.scatter_add(-1, idx, y[..., 4:]),
                self.table.index_put((rows,), self.table[rows.flip(0)] * 2, accumulate=True),
                self.grid.index_put((rows, cols), self.grid[cols, rows] - 1, accumulate=True))


class Scattering(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = ScatterBlock()

    def forward(self, x, idx, rows, cols):
        return self.block(x, idx, rows, cols)


def build_scattering():
    torch.manual_seed(make_samples.SEED)
    gen = torch.Generator().manual_seed(make_samples.SEED + 37)
    inputs = (torch.randn(2, 10, 8, generator=gen), torch.randint(0, 8, (2, 10, 4), generator=gen),
              torch.randint(0, 8, (5,), generator=gen), torch.randint(0, 8, (5,), generator=gen))
    seq = torch.export.Dim("seq", min=2, max=32)
    return {"module": Scattering().eval(), "inputs": inputs,
            "dynamic_shapes": {"x": {1: seq}, "idx": {1: seq}, "rows": None, "cols": None}}


IMAGE_DIMS = {2: torch.export.Dim("h", min=4, max=32), 3: torch.export.Dim("w", min=4, max=32)}
BUILDERS = dict(make_samples.MODELS, wide=build_wide, float_mask=build_float_mask, decoder_fp16=build_decoder_as(torch.float16),
                decoder_bf16=build_decoder_as(torch.bfloat16), decoder_fp16_dynamic=build_decoder_dynamic_as(torch.float16),
                decoder_bf16_dynamic=build_decoder_dynamic_as(torch.bfloat16),
                odd_mlp_fp16_dynamic=build_odd_mlp_as(torch.float16), wide_fp16=build_wide_fp16, odd_mlp_bf16_dynamic=build_odd_mlp_as(torch.bfloat16),
                convnet=build_convnet, twin=build_twin, indexing=build_indexing,
                padding=build_held(PadBlock, (2, 3, 6, 7), 23, IMAGE_DIMS),
                resizing=build_held(UpBlock, (2, 3, 6, 7), 29, IMAGE_DIMS),
                selecting=build_held(SelectBlock, (2, 10, 8), 31, {1: torch.export.Dim("seq", min=2, max=32)}),
                scattering=build_scattering)


def sample_path(stem):
    p = ROOT / "samples" / f"{stem}.pt2"
    return p if p.exists() else ROOT / "samples" / "kernels" / f"{stem}.pt2"


# The samples this script exports itself (the others come from make_samples.py): each is
# BUILDERS[<stem> less ".default"] through torch.export, default IR, with the builder's dynamic dims.
EXPORTS = ["wide.default", "twin.default", "wide_fp16.default", "convnet.default", "float_mask.default",
           "decoder_fp16.default", "decoder_bf16.default", "decoder_fp16_dynamic.default",
           "decoder_bf16_dynamic.default", "odd_mlp_fp16_dynamic.default", "odd_mlp_bf16_dynamic.default",
           "indexing.default", "padding.default", "resizing.default",
           "selecting.default", "scattering.default"]


def export_sample(stem):
    """samples/kernels/<stem>.pt2 from its builder."""
    spec = BUILDERS[stem.removesuffix(".default")]()
    ep = torch.export.export(spec["module"], spec["inputs"], dynamic_shapes=spec.get("dynamic_shapes"))
    path = ROOT / "samples" / "kernels" / f"{stem}.pt2"
    torch.export.save(ep, str(path))
    print(f"  {path.relative_to(ROOT)}")


NP_DTYPES = {"FLOAT": np.float32, "FLOAT16": np.float16, "INT64": np.int64, "INT32": np.int32, "BOOL": np.bool_}
TORCH_FLOATS = {"FLOAT": torch.float32, "FLOAT16": torch.float16, "BFLOAT16": torch.bfloat16}


def to_numpy(t, dtype):
    """A tensor in the manifest dtype; bfloat16 as its uint16 bit patterns (numpy has no bf16)."""
    if dtype == "BFLOAT16":
        return t.detach().to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    return t.detach().numpy().astype(NP_DTYPES[dtype])


def eval_dim(d, syms):
    if isinstance(d, int):
        return d
    return int(eval(d.replace("//", "//"), {"__builtins__": {}, "cdiv": lambda a, b: -(-a // b)}, dict(syms)))


def cases_for(manifest, root, dynamic_sizes):
    state = dict(root.named_parameters())
    state.update(dict(root.named_buffers()))
    names = [i["name"] for i in manifest["inputs"]]
    out = []
    for site in manifest["call_sites"]:
        params = [n for n in site["inputs"] if n in state]
        if not params:
            raise SystemExit(f"{manifest['function']['name']}: call site {site['node']} has no parameters to find its module")
        prefix = ".".join(params[0].split(".")[:-1])
        for p in params[1:]:
            while prefix and not p.startswith(prefix + "."):
                prefix = ".".join(prefix.split(".")[:-1])
        # The parameters may all belong to one child (PoolBlock's conv): walk up to the function's type.
        up = prefix
        while up and type(root.get_submodule(up)).__name__ != manifest["function"]["name"]:
            up = ".".join(up.split(".")[:-1])
        if up:
            prefix = up
        module = root.get_submodule(prefix) if prefix else root
        fixed, dynamic = {}, []
        for sym, spec in manifest["symbols"].items():
            value = None
            for inp, actual in zip(manifest["inputs"], site["inputs"]):
                if actual in state:
                    for axis, d in enumerate(inp["shape"]):
                        if d == sym:
                            value = state[actual].shape[axis]
            if value is None:
                dynamic.append(sym)
            else:
                fixed[sym] = int(value)
        for sizes in itertools.product(dynamic_sizes, repeat=len(dynamic)) if dynamic else [()]:
            syms = dict(fixed)
            syms.update(zip(dynamic, sizes))
            out.append((site, module, syms))
    return out, state, names


def run_case(manifest, site, module, syms, state, seed):
    gen = torch.Generator().manual_seed(seed)
    ins, acts = {}, []
    for inp, actual in zip(manifest["inputs"], site["inputs"]):
        if actual in state:
            t = state[actual].detach()
        else:
            shape = [eval_dim(d, syms) for d in inp["shape"]]
            if inp["dtype"] in TORCH_FLOATS:
                t = torch.randn(*shape, generator=gen).to(TORCH_FLOATS[inp["dtype"]])
            elif inp["dtype"] in ("INT64", "INT32"):
                t = torch.randint(0, 8, shape, generator=gen, dtype=torch.int64)
            elif inp["dtype"] == "BOOL":
                # About a third masked, and the first query row masked entirely (gives zeros).
                t = torch.rand(*shape, generator=gen) < 0.7
                if len(shape) >= 2:
                    t[..., 0, :] = False
            else:
                raise SystemExit(f"activation dtype {inp['dtype']} not handled")
            acts.append(t)
        ins[inp["name"]] = to_numpy(t, inp["dtype"])
    # A function may take more activations than forward() does (e.g. the block's input, read only
    # for its shape). forward() gets the first ones; run_kernel_tests.py checks these references
    # against onnxruntime running the function itself, which catches a wrong pick.
    n_args = len([p for p in inspect.signature(module.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
    with torch.no_grad():
        result = module(*acts[:n_args])
    results = result if isinstance(result, (tuple, list)) else (result,)
    outs = {}
    for o, r in zip(manifest["outputs"], results):
        shape = [eval_dim(d, syms) for d in o["shape"]]
        arr = to_numpy(r, o["dtype"])
        if list(arr.shape) != shape:
            raise SystemExit(f"{manifest['function']['name']}: torch output {o['name']} has shape {list(arr.shape)}, manifest {shape}")
        outs[o["name"]] = arr
    return ins, outs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pt2onnx", required=True)
    ap.add_argument("--out", default=str(ROOT / "samples" / "kernels"))
    ap.add_argument("--only", nargs="*", help="sample stems to (re)make, e.g. attention.default; default all")
    args = ap.parse_args()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    runs = [r for r in RUNS if not args.only or r[0] in args.only]
    for stem in sorted({r[0] for r in runs} & set(EXPORTS)):
        export_sample(stem)
    for stem, builder, types, dynamic_sizes in runs:
        root = BUILDERS[builder]()["module"].eval()
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [args.pt2onnx, str(sample_path(stem)), "-o", f"{tmp}/m.onnx", "--opset", "18", "-q"]
            for t in types:
                cmd += ["--compile", t]
            subprocess.run(cmd, check=False)
            for mpath in sorted(Path(tmp).glob("*.kernels/manifest.json")):
                manifest = json.loads(mpath.read_text())
                cases, state, _ = cases_for(manifest, root, dynamic_sizes)
                arrays = {}
                for k, (site, module, syms) in enumerate(cases):
                    ins, outs = run_case(manifest, site, module, syms, state, seed=1000 + k)
                    arrays[f"case{k}.symbols"] = np.array([f"{s}={v}" for s, v in sorted(syms.items())])
                    # Keyed by position in the function's signature (value names inside functions
                    # change when translation rules do). Inputs equal to case 0's (weights) are
                    # stored once; readers fall back to case 0.
                    for n, a in enumerate(ins.values()):
                        first = arrays.get(f"case0.in.{n}")
                        if k == 0 or first is None or first.shape != a.shape or not np.array_equal(first, a):
                            arrays[f"case{k}.in.{n}"] = a
                    for n, a in enumerate(outs.values()):
                        arrays[f"case{k}.out.{n}"] = a
                # Named after the bundle: a function with several input signatures has several.
                name = mpath.parent.name[:-len(".kernels")]
                path = out_dir / f"{stem}.{name}.io.npz"
                buf = io.BytesIO()
                np.savez_compressed(buf, **arrays)
                path.write_bytes(buf.getvalue())
                print(f"  {path.relative_to(ROOT)}: {len(cases)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
