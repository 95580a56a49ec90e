#!/usr/bin/env python3
"""Makes the quantization samples in samples/quant/ with real torch 2.15 and torchao (tooling only).

Each case is a tiny float model taken through a real quantization flow, then exported with
torch.export.export and saved:

- PT2E static (torchao.quantization.pt2e prepare_pt2e / calibrate / convert_pt2e) with the
  quantizers torchao ships: X86InductorQuantizer (uint8 activations, int8 per-channel weights) on a
  CNN, the XNNPACK quantizer (int8 symmetric per-channel weights, int8 activations, outputs of
  Linear quantized too) on an MLP and on a transformer block;
- PT2E dynamic (XNNPACK's is_dynamic config: choose_qparams.tensor before each Linear);
- PT2E QAT (prepare_qat_pt2e, a few training steps, convert_pt2e), and the same exported before
  convert_pt2e, in training mode (fake quantization; its observers' buffers are state);
- torchao weight-only `quantize_`: int8 per-channel (plain aten ops on an int8 weight), int4 in
  groups of 32 (IntxWeightOnlyConfig: torchao.dequantize_affine) and int8 dynamic activations with
  int4 group weights (choose_qparams_affine / quantize_affine / dequantize_affine).

Next to `<name>.pt2`, `<name>.io.npz` holds the inputs (`input_<i>`) and the quantized program's
eager torch outputs (`output_<i>`); `<name>.float.pt2` is the float model before quantization
(for the size and time comparison). samples/quant/quant_samples.json describes each case: what
it covers, the flow, the ONNX ops its conversion must use, the integer kernels onnxruntime's
optimizer must make of it, the opset it needs, and `steps`: for each output, the quantization
step (the scale of its final dequantize_per_tensor, null for a float output), by which
tests/models/run_quant_tests.py states its tolerance (for a QAT program before convert, its fake
quantization's scale), `state`: the buffers a QAT program's observers update, whose new values
follow the outputs in `<name>.io.npz` as they follow them in the ONNX, `int_weights`: the int8/uint8 weights the
program reads, which the ONNX must hold as int8/uint8 initializers, and `int4_weights`: those of
them a dequantize reads with a 4-bit range, which it must hold as INT4/UINT4 (packed two per
byte); `<name>.io.npz` then also holds torch's dequantized weight as `dequantized_<FX node>`.

Usage: python make_quant_samples.py [--out samples/quant] [--only cnn_x86,mlp_dynamic]
Needs torchao: `scripts/torch_venv.sh 2.15 --quant`.
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_samples as ms  # noqa: E402  (shared helpers: provenance, byte-stable writes)

CASES = {}


def case(name, flow, onnx_ops, kernels=(), opset=18, refused_below=None, dynamic=None, matmul_nbits=0):
    """Registers a builder: build(gen) -> (quantized module, float module, inputs). onnx_ops: the
    ONNX ops its conversion must use (at `opset`); kernels: onnxruntime's integer kernels that
    its optimized model must hold; refused_below: the opset below which conversion must refuse;
    dynamic: dynamic_shapes for the export of the quantized program; matmul_nbits: how many
    com.microsoft.MatMulNBits its conversion with --matmul-nbits must make (4-bit Linear layers)."""

    def register(fn):
        assert fn.__doc__ and "\n" not in fn.__doc__.strip(), f"{name}: needs a one-line docstring"
        CASES[name] = dict(build=fn, flow=flow, onnx_ops=list(onnx_ops), kernels=list(kernels), opset=opset,
                           refused_below=refused_below, dynamic=dynamic, matmul_nbits=matmul_nbits)
        return fn

    return register


def seed_of(name):
    return ms.SEED + zlib.crc32(name.encode()) % 100_000


# ----------------------------------------------------------------------------------------------
# Float models
# ----------------------------------------------------------------------------------------------


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class MLP(nn.Module):
    def __init__(self, d_in=32, d_hidden=64, d_out=16):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class Block(nn.Module):
    """A pre-norm transformer block: attention (q/k/v/out Linear, SDPA) and a GELU MLP."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.up, self.down = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)

    def split(self, t):
        b, s, d = t.shape
        return t.view(b, s, self.heads, d // self.heads).transpose(1, 2)

    def forward(self, x):
        h = self.norm1(x)
        a = F.scaled_dot_product_attention(self.split(self.q(h)), self.split(self.k(h)), self.split(self.v(h)), is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(x.shape))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


# ----------------------------------------------------------------------------------------------
# Flows
# ----------------------------------------------------------------------------------------------


def pt2e(model, inputs, quantizer, calib, qat=False):
    """PT2E: export for training, prepare (or prepare for QAT and train a few steps), calibrate on
    `calib` batches, convert. Returns the converted GraphModule."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e, prepare_qat_pt2e

    if qat:
        model.train()
        prepared = prepare_qat_pt2e(torch.export.export(model, inputs).module(), quantizer)
        opt = torch.optim.SGD(prepared.parameters(), lr=1e-3)
        for batch in calib:
            opt.zero_grad()
            prepared(*batch).square().mean().backward()
            opt.step()
        from torchao.quantization.pt2e import move_exported_model_to_eval
        move_exported_model_to_eval(prepared)
    else:
        prepared = prepare_pt2e(torch.export.export(model.eval(), inputs).module(), quantizer)
        with torch.no_grad():
            for batch in calib:
                prepared(*batch)
    return convert_pt2e(prepared)


def xnnpack(**config):
    from torchao.testing.pt2e._xnnpack_quantizer import XNNPACKQuantizer, get_symmetric_quantization_config

    return XNNPACKQuantizer().set_global(get_symmetric_quantization_config(**config))


def x86():
    import torchao.quantization.pt2e.quantizer.x86_inductor_quantizer as xiq

    q = xiq.X86InductorQuantizer()
    q.set_global(xiq.get_default_x86_inductor_quantization_config())
    return q


def last_step(gm):
    """The scale of the last dequantize_per_tensor before the output, or None (a float output)."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    node = out.args[0][0] if isinstance(out.args[0], (tuple, list)) else out.args[0]
    if node.target is torch.ops.quantized_decomposed.dequantize_per_tensor.default:
        return float(node.args[1])
    return None


def calibration(gen, shape, n=8):
    return [(torch.randn(*shape, generator=gen),) for _ in range(n)]


@case("cnn_x86", "pt2e static, X86InductorQuantizer", ["QuantizeLinear", "DequantizeLinear", "Conv"], ["QLinearConv"])
def cnn_x86(gen):
    """Conv/ReLU/MaxPool/Conv/ReLU/avg pool/Linear CNN: uint8 per-tensor activations, int8 per-channel weights (axis 0)."""
    model = CNN().eval()
    x = torch.randn(2, 3, 16, 16, generator=gen)
    return pt2e(model, (x,), x86(), calibration(gen, x.shape)), model, (x,)


@case("mlp_xnnpack", "pt2e static, XNNPACK quantizer", ["QuantizeLinear", "DequantizeLinear", "MatMul"], ["QGemm"])
def mlp_xnnpack(gen):
    """Linear/ReLU/Linear on [batch, seq, features]: int8 activations (outputs of Linear too), int8 per-channel weights (narrow range -127..127)."""
    model = MLP().eval()
    x = torch.randn(2, 5, 32, generator=gen)
    return pt2e(model, (x,), xnnpack(is_per_channel=True), calibration(gen, x.shape)), model, (x,)


@case("block_xnnpack", "pt2e static, XNNPACK quantizer", ["QuantizeLinear", "DequantizeLinear", "MatMul"], ["QGemm"])
def block_xnnpack(gen):
    """Pre-norm transformer block (LayerNorm, q/k/v/out projections, causal SDPA, GELU MLP) with every Linear quantized, int8 per-channel weights."""
    model = Block().eval()
    x = torch.randn(2, 6, 32, generator=gen)
    return pt2e(model, (x,), xnnpack(is_per_channel=True), calibration(gen, x.shape)), model, (x,)


@case("mlp_dynamic", "pt2e dynamic, XNNPACK quantizer (is_dynamic)", ["QuantizeLinear", "DequantizeLinear", "ReduceMin", "ReduceMax"], ["MatMulNBits"])
def mlp_dynamic(gen):
    """Dynamic activation quantization: choose_qparams.tensor (int8 asymmetric, eps 2^-12) and the .tensor Q/DQ overloads before each Linear."""
    model = MLP().eval()
    x = torch.randn(2, 5, 32, generator=gen)
    return pt2e(model, (x,), xnnpack(is_per_channel=True, is_dynamic=True), calibration(gen, x.shape, 1)), model, (x,)


@case("cnn_qat", "pt2e QAT, XNNPACK quantizer (is_qat), 4 SGD steps", ["QuantizeLinear", "DequantizeLinear", "Conv"], ["QLinearConv", "QGemm"])
def cnn_qat(gen):
    """The CNN trained with fake quantization (prepare_qat_pt2e), then converted: int8 activations, int8 per-channel weights."""
    model = CNN()
    x = torch.randn(2, 3, 16, 16, generator=gen)
    return pt2e(model, (x,), xnnpack(is_per_channel=True, is_qat=True), calibration(gen, x.shape, 4), qat=True), model, (x,)


def torchao_quantized(model, config):
    from torchao.quantization import quantize_
    from torchao.utils import unwrap_tensor_subclass

    quantized = copy.deepcopy(model)  # quantize_ works in place; the float model is kept
    quantize_(quantized, config)
    return unwrap_tensor_subclass(quantized)


@case("mlp_int8_weight_only", "torchao quantize_ Int8WeightOnlyConfig", ["Cast", "MatMul", "Mul"])
def mlp_int8_weight_only(gen):
    """torchao int8 weight-only: the int8 weight cast to float, matmul, per-row scale (plain aten ops)."""
    import torchao.quantization as tq
    model = MLP().eval()
    x = torch.randn(2, 5, 32, generator=gen)
    return torchao_quantized(model, tq.Int8WeightOnlyConfig()), model, (x,)


@case("mlp_int4_weight_only", "torchao quantize_ IntxWeightOnlyConfig(int4, PerGroup(32))", ["DequantizeLinear"], ["MatMulNBits"], opset=21,
      refused_below=21, matmul_nbits=2)
def mlp_int4_weight_only(gen):
    """torchao int4 weight-only in groups of 32 along K: torchao.dequantize_affine with block_size [1, 32] (values -8..7 stored in int8)."""
    import torchao.quantization as tq
    model = MLP().eval()
    x = torch.randn(2, 5, 32, generator=gen)
    return torchao_quantized(model, tq.IntxWeightOnlyConfig(weight_dtype=torch.int4, granularity=tq.PerGroup(32))), model, (x,)


@case("mlp_8da4w", "torchao quantize_ Int8DynamicActivationIntxWeightConfig(int4, PerGroup(32))",
      ["DequantizeLinear", "ReduceMin", "ReduceMax", "Round"], ["MatMulNBits"], opset=21, refused_below=21, matmul_nbits=2,
      dynamic={"x": {0: torch.export.Dim("batch", max=64), 1: torch.export.Dim("seq", max=64)}})
def mlp_8da4w(gen):
    """int8 per-token dynamic activations (torchao choose_qparams_affine, quantize_affine) and int4 group-32 weights (dequantize_affine); dynamic batch and sequence."""
    import torchao.quantization as tq
    model = MLP().eval()
    x = torch.randn(2, 5, 32, generator=gen)
    return torchao_quantized(model, tq.Int8DynamicActivationIntxWeightConfig(
        weight_dtype=torch.int4, weight_granularity=tq.PerGroup(32))), model, (x,)


@case("mlp_float8_weight_only", "torchao quantize_ Float8WeightOnlyConfig", ["Cast", "MatMul", "Mul"], opset=19,
      refused_below=19)
def mlp_float8_weight_only(gen):
    """torchao float8 weight-only: float8_e4m3fn weights with a per-row scale, cast to float32 and scaled (plain aten ops); float8 needs opset 19."""
    import torchao.quantization as tq
    model = MLP().eval()
    x = torch.randn(2, 5, 32, generator=gen)
    return torchao_quantized(model, tq.Float8WeightOnlyConfig()), model, (x,)


class QDQForms(nn.Module):
    """Hand-written quantized_decomposed calls that the flows above do not make."""

    def __init__(self):
        super().__init__()
        import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)

        self.w = nn.Parameter(torch.randn(8, 64))  # quantized in groups of 32 in forward
        self.register_buffer("w_scales", torch.rand(8, 2) * 0.02 + 0.01)
        self.register_buffer("w_zeros", torch.randint(-4, 5, (8, 2)))
        self.register_buffer("ch_scales", torch.rand(64) * 0.05 + 0.01)
        self.register_buffer("ch_zeros", torch.randint(-10, 11, (64,)))

    def forward(self, x):
        qd = torch.ops.quantized_decomposed
        s, z = qd.choose_qparams_per_token_asymmetric(x, torch.int8)
        tok = qd.quantize_per_token(x, s, z, -128, 127, torch.int8)
        tok_f = qd.dequantize_per_token(tok, s, z, -128, 127, torch.int8, torch.float32)
        s2, z2 = qd.choose_qparams_per_token(x, torch.int8)
        tok2 = qd.quantize_per_token(x, s2, z2, -128, 127, torch.int8)
        wq = qd.quantize_per_channel_group(self.w, self.w_scales, self.w_zeros, -8, 7, torch.int8, 32)
        wf = qd.dequantize_per_channel_group(wq, self.w_scales, self.w_zeros, -8, 7, torch.int8, 32, torch.float32)
        ch = qd.quantize_per_channel(x, self.ch_scales, self.ch_zeros, 2, -100, 100, torch.int8)
        ss, sz = qd.choose_qparams_symmetric.tensor(x, -128, 127, 1e-6, torch.int8)
        sym = qd.quantize_per_tensor.tensor2(x, ss, sz, torch.tensor(-127), torch.tensor(127), torch.int8)
        us, uz = qd.choose_qparams.tensor(x, 0, 255, 2.0 ** -12, torch.uint8)
        u = qd.quantize_per_tensor.tensor(x, us, uz, 0, 255, torch.uint8)
        uf = qd.dequantize_per_tensor.tensor2(u, us, uz, torch.tensor(0), torch.tensor(255), torch.uint8)
        return tok, tok_f, tok2, wq, wf @ x.transpose(1, 2)[0], ch, sym, u, uf


@case("qdq_forms", "hand-written quantized_decomposed calls",
      ["QuantizeLinear", "DequantizeLinear", "ReduceMin", "ReduceMax", "Round", "Clip"])
def qdq_forms(gen):
    """Per-token (both choose_qparams_per_token forms), per-channel-group Q/DQ, per-channel Q of an activation (axis 2, narrow range), .tensor/.tensor2 overloads, symmetric and uint8 choose_qparams."""
    model = QDQForms()
    return model, model, (torch.randn(2, 5, 64, generator=gen) * 2,)


class QDQInt16(nn.Module):
    """int16 per-tensor Q/DQ (opset 21+)."""

    def forward(self, x):
        qd = torch.ops.quantized_decomposed
        q = qd.quantize_per_tensor(x, 0.001, 3, -32768, 32767, torch.int16)
        return q, qd.dequantize_per_tensor(q, 0.001, 3, -32768, 32767, torch.int16)


@case("qdq_int16", "hand-written quantized_decomposed calls", ["QuantizeLinear", "DequantizeLinear"], opset=21,
      refused_below=21)
def qdq_int16(gen):
    """int16 per-tensor quantize/dequantize: QuantizeLinear/DequantizeLinear from opset 21, refused by name below."""
    import torch.ao.quantization.fx._decomposed  # noqa: F401

    return QDQInt16(), QDQInt16(), (torch.randn(3, 7, generator=gen) * 4,)


class QDQUInt4(nn.Module):
    """A Linear whose weight is uint4 (0..15 in uint8) in groups of 32."""

    def __init__(self, gen):
        super().__init__()
        import torch.ao.quantization.fx._decomposed  # noqa: F401

        self.register_buffer("w", torch.randint(0, 16, (24, 64), generator=gen, dtype=torch.uint8))
        self.register_buffer("scales", torch.rand(24, 2, generator=gen) * 0.02 + 0.01)
        # int64 zero points: torch subtracts uint8 ones in uint8, wrapping below zero
        self.register_buffer("zeros", torch.randint(4, 12, (24, 2), generator=gen))

    def forward(self, x):
        qd = torch.ops.quantized_decomposed
        w = qd.dequantize_per_channel_group(self.w, self.scales, self.zeros, 0, 15, torch.uint8, 32, torch.float32)
        return F.linear(x, w)


@case("qdq_uint4", "hand-written quantized_decomposed calls", ["DequantizeLinear", "Gemm"], opset=21, refused_below=21)
def qdq_uint4(gen):
    """uint4 weight (uint8 storage, range 0..15, int64 zero points) in groups of 32: a UINT4 initializer from opset 21, refused below."""
    model = QDQUInt4(gen)
    return model, model, (torch.randn(3, 64, generator=gen),)


class FakeQuantForms(nn.Module):
    """The fake-quantize ops one by one, and QAT's observer in its functional form (core ATen IR's)."""

    def __init__(self, gen):
        super().__init__()
        import torch.ao.quantization.fx._decomposed  # noqa: F401

        self.register_buffer("scales", torch.rand(6, generator=gen) * 0.05 + 0.01)
        self.register_buffer("zeros", torch.randint(-10, 10, (6,), generator=gen, dtype=torch.int32))
        self.register_buffer("learned_zeros", torch.randn(6, generator=gen) * 8)  # rounded, clamped by torch
        self.register_buffer("on", torch.ones(1, dtype=torch.long))
        self.register_buffer("off", torch.zeros(1, dtype=torch.long))
        # a per-tensor observer that has seen data, and a per-row one that has not (+-inf)
        self.register_buffer("t_min", torch.tensor(-1.5))
        self.register_buffer("t_max", torch.tensor(2.0))
        self.register_buffer("r_min", torch.full((6,), float("inf")))
        self.register_buffer("r_max", torch.full((6,), float("-inf")))
        self.register_buffer("r_scale", torch.ones(6))
        self.register_buffer("r_zero", torch.zeros(6, dtype=torch.int32))

    def forward(self, x, w):
        qd, aten = torch.ops.quantized_decomposed, torch.ops.aten
        per_channel = qd.fake_quant_per_channel(x, self.scales, self.zeros, 1, -128, 127)
        half = qd.convert_element_type.no_fuse(x, torch.float16)
        learned = aten._fake_quantize_learnable_per_tensor_affine(x, self.scales[:1], self.learned_zeros[:1] + 100, 0, 255, 1.0)
        learned_ch = aten._fake_quantize_learnable_per_channel_affine(x, self.scales, self.learned_zeros, 1, -128, 127, 1.0)
        cached, mask = aten.fake_quantize_per_tensor_affine_cachemask(x, 0.02, 3, -128, 127)
        qparams, qmask = aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(
            x, self.scales[:1], self.zeros[:1], self.on, -128, 127)
        channel, cmask = aten.fake_quantize_per_channel_affine_cachemask(x, self.scales, self.zeros, 1, -128, 127)
        # per tensor, asymmetric uint8, observing; per row of a weight, symmetric int8, first observation;
        # the same with fake quantization off
        obs = aten._fused_moving_avg_obs_fq_helper_functional(
            x, self.on, self.on, self.t_min, self.t_max, self.scales[:1], self.zeros[:1], 0.01, 0, 255, 0, False, False)
        row = aten._fused_moving_avg_obs_fq_helper_functional(
            w, self.on, self.on, self.r_min, self.r_max, self.r_scale, self.r_zero, 0.01, -128, 127, 0, True, True)
        idle = aten._fused_moving_avg_obs_fq_helper_functional(
            w, self.off, self.off, self.r_min, self.r_max, self.r_scale, self.r_zero, 0.01, -128, 127, 0, True, True)
        return (per_channel, half, learned, learned_ch, cached, mask, qparams, qmask, channel, cmask, *obs, *row, idle[0], idle[4])


@case("fake_quant_forms", "hand-written fake-quantize calls", ["Round", "Clip", "Where"])
def fake_quant_forms(gen):
    """fake_quant_per_channel, convert_element_type.no_fuse, the learnable and cachemask fake quantizers, and the observer's functional form (per tensor; per row, symmetric, first observation, with zero, tiny and one-signed rows; switched off)."""
    model = FakeQuantForms(gen)
    w = torch.randn(6, 5, generator=gen)
    w[1] = 0  # scale 0 -> 0.1
    w[2] *= 1e-6  # scale under 6.1e-5, raised with its range
    w[3] = w[3].abs() + 0.5  # all positive: the range widened to 0
    w[4] = -w[4].abs()
    return model, model, (torch.randn(2, 6, 5, generator=gen) * 2, w)


class Float8Forms(nn.Module):
    """torchao's float8 ops called directly: per-row, block-wise and per-tensor scales."""

    def forward(self, x):
        import torchao.quantization.quant_primitives  # noqa: F401  (registers torch.ops.torchao)

        ao, e4, e5 = torch.ops.torchao, torch.float8_e4m3fn, torch.float8_e5m2
        outs = []
        for block, dtype, lb in (([1, 64], e4, None), ([2, 32], e4, None), ([4, 64], e5, 1e-3)):
            scale = ao.choose_scale_float8(x, block, dtype, torch.float32, lb, None)
            q = ao.quantize_affine_float8_non_decomposed(x, scale, dtype)
            outs += [ao.dequantize_affine_float8_non_decomposed(q, scale, torch.float32), scale]
        return tuple(outs)


@case("float8_forms", "hand-written torchao float8 calls", ["Cast", "ReduceMax", "Clip"], opset=19, refused_below=19)
def float8_forms(gen):
    """torchao choose_scale_float8 / quantize_affine_float8_non_decomposed / dequantize_affine_float8_non_decomposed: per row and in 2x32 blocks (e4m3fn), per tensor with a lower bound (e5m2); refused below opset 19."""
    x = torch.randn(4, 64, generator=gen) * 3
    x[1] *= 100  # past e4m3fn's 448 before scaling
    return Float8Forms(), Float8Forms(), (x,)


@case("cnn_qat_prepared", "pt2e QAT, XNNPACK quantizer (is_qat), 4 SGD steps, exported before convert_pt2e (train mode)",
      ["Round", "Clip", "Conv"])
def cnn_qat_prepared(gen):
    """The QAT CNN exported as training runs it: fused_moving_avg_obs_fake_quant on activations (per tensor) and weights (per row), its observers' running min/max, scale and zero point updated as buffer state."""
    model = CNN()
    x = torch.randn(2, 3, 16, 16, generator=gen)
    from torchao.quantization.pt2e.quantize_pt2e import prepare_qat_pt2e

    model.train()
    prepared = prepare_qat_pt2e(torch.export.export(model, (x,)).module(), xnnpack(is_per_channel=True, is_qat=True))
    opt = torch.optim.SGD(prepared.parameters(), lr=1e-3)
    for (batch,) in calibration(gen, x.shape, 4):
        opt.zero_grad()
        prepared(batch).square().mean().backward()
        opt.step()
    return prepared, model, (x,)


# ----------------------------------------------------------------------------------------------
# Making
# ----------------------------------------------------------------------------------------------


def _np(t):
    return t.detach().cpu().contiguous().numpy().copy()


def _save(ep, pt2: Path):
    ms._stabilize_provenance(ep)
    for node in ep.graph.nodes:  # source lines and pass provenance: most of the JSON, no use here
        node.meta.pop("stack_trace", None)
        node.meta.pop("from_node", None)
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td) / pt2.name
        torch.export.save(ep, str(tmp))
        data = tmp.read_bytes()
    if not (pt2.exists() and ms._zip_content(pt2.read_bytes()) == ms._zip_content(data)):
        ms._write_if_changed(pt2, data)
    return pt2.stat().st_size


# The weights that must stay what they are in the ONNX (never floats).
QUANTIZED_WEIGHT_DTYPES = (torch.int8, torch.uint8, torch.float8_e4m3fn, torch.float8_e5m2)
FOUR_BIT_DEQUANTIZE = ("torchao.dequantize_affine.default", "quantized_decomposed.dequantize_per_channel_group.default")


def four_bit_weights(ep):
    """The int8/uint8 weights that a dequantize op reads with a 4-bit quant range (int8 -8..7,
    uint8 0..15), which the ONNX must hold as INT4/UINT4, and what torch dequantizes each to (by
    the FX name of the dequantize node, which names its ONNX value too)."""
    state = {s.arg.name: ep.state_dict.get(s.target, ep.constants.get(s.target)) for s in ep.graph_signature.input_specs
             if s.target and getattr(s.arg, "name", None)}
    weights, dequantized = [], {}
    for node in ep.graph.nodes:
        if node.op != "call_function" or str(node.target).replace("torch.ops.", "") not in FOUR_BIT_DEQUANTIZE:
            continue
        args = dict(zip([a.name for a in node.target._schema.arguments], node.args), **node.kwargs)
        w = args["input"]
        if not (hasattr(w, "op") and w.op == "placeholder" and state.get(w.name) is not None):
            continue
        lo, hi = args.get("quant_min"), args.get("quant_max")
        t = state[w.name]
        if not (lo is not None and hi is not None and ((t.dtype == torch.int8 and lo >= -8 and hi <= 7)
                                                     or (t.dtype == torch.uint8 and lo >= 0 and hi <= 15))):
            continue
        weights.append(next(s.target for s in ep.graph_signature.input_specs if getattr(s.arg, "name", None) == w.name))
        fill = lambda a: state[a.name] if hasattr(a, "op") else a  # noqa: E731
        with torch.no_grad():
            dequantized[node.name] = _np(node.target(*[fill(a) for a in node.args],
                                                     **{k: fill(v) for k, v in node.kwargs.items()}))
    return sorted(weights), dequantized


OBSERVERS = (torch.ops.aten.fused_moving_avg_obs_fake_quant.default,)
OBSERVER_STATE = ("running_min", "running_max", "scale", "zero_point")


def observer_state(ep):
    """The buffers QAT observers update in place, in signature order (the order of the ONNX state
    outputs), and the scale buffer of the observer whose output the program returns (or None)."""
    by_placeholder = {s.arg.name: s.target for s in ep.graph_signature.input_specs if s.target}
    updated, returned_scale = set(), None
    out = next(n for n in ep.graph.nodes if n.op == "output")
    returned = out.args[0][0] if isinstance(out.args[0], (tuple, list)) else out.args[0]
    for node in ep.graph.nodes:
        if node.op == "call_function" and node.target in OBSERVERS:
            args = dict(zip([a.name for a in node.target._schema.arguments], node.args), **node.kwargs)
            updated.update(by_placeholder[args[k].name] for k in OBSERVER_STATE)
            if node is returned:
                returned_scale = by_placeholder[args["scale"].name]
    order = [s.target for s in ep.graph_signature.input_specs if s.target in updated]
    return order, returned_scale


def make_case(name, out_dir: Path):
    spec = CASES[name]
    torch.manual_seed(seed_of(name))
    gen = torch.Generator().manual_seed(seed_of(name) + 1)
    quantized, float_model, inputs = spec["build"](gen)
    # (exported from a copy, and run on copies: a QAT program's observers update its buffers per call)
    ep = torch.export.export(copy.deepcopy(quantized), inputs, dynamic_shapes=spec["dynamic"])
    state, returned_scale = observer_state(ep)
    eager_model, exported_model = copy.deepcopy(quantized), copy.deepcopy(ep).module()
    with torch.no_grad():
        eager = [_np(t) for t in ms._flat_tensors(eager_model(*inputs))]
        exported = [_np(t) for t in ms._flat_tensors(exported_model(*inputs))]
    buffers = dict(eager_model.named_buffers(remove_duplicate=False))
    eager += [_np(buffers[t]) for t in state]
    exported += [_np(dict(exported_model.named_buffers(remove_duplicate=False))[t]) for t in state]
    for i, (a, b) in enumerate(zip(eager, exported)):
        assert np.array_equal(a, b), f"{name}: exported output {i} differs from eager by {np.abs(a - b).max()}"
    if state:  # the returned value is fake-quantized with its observer's scale after this call
        steps = [float(buffers[returned_scale].reshape(-1)[0]) if returned_scale else None] + [None] * len(state)
    else:
        steps = [last_step(ep.graph_module)] if len(eager) == 1 else [None] * len(eager)
    int_weights = sorted(spec.target for spec in ep.graph_signature.input_specs
                         if spec.target and ep.state_dict.get(spec.target, ep.constants.get(spec.target)) is not None
                         and ep.state_dict.get(spec.target, ep.constants.get(spec.target)).dtype in QUANTIZED_WEIGHT_DTYPES
                         and ep.graph.find_nodes(op="placeholder", target=spec.arg.name)[0].users)
    int4_weights, dequantized = four_bit_weights(ep)
    arrays = {f"input_{i}": _np(t) for i, t in enumerate(inputs)}
    arrays.update({f"output_{i}": a for i, a in enumerate(eager)})
    arrays.update({f"dequantized_{n}": a for n, a in dequantized.items()})
    size = _save(ep, out_dir / f"{name}.pt2")
    float_size = _save(torch.export.export(float_model.eval(), inputs), out_dir / f"{name}.float.pt2")
    ms._write_if_changed(out_dir / f"{name}.io.npz", ms._npz_bytes(arrays))
    ops = sorted({str(n.target).replace("torch.ops.", "") for n in ep.graph.nodes if n.op == "call_function"})
    print(f"  {name}: {size} bytes (float {float_size}), ops {ops}")
    return {"covers": spec["build"].__doc__.strip(), "flow": spec["flow"], "onnx_ops": spec["onnx_ops"],
            "kernels": spec["kernels"], "opset": spec["opset"], "refused_below": spec["refused_below"], "steps": steps, "int_weights": int_weights, "int4_weights": int4_weights, "matmul_nbits": spec["matmul_nbits"], "state": state, "torch_ops": ops}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "samples" / "quant")
    ap.add_argument("--only", default="")
    args = ap.parse_args(argv)
    assert tuple(int(v) for v in torch.__version__.split(".")[:2]) == (2, 15), "make these with torch 2.15"
    args.out.mkdir(parents=True, exist_ok=True)
    names = [n for n in args.only.split(",") if n] or list(CASES)
    manifest_path = args.out / "quant_samples.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    import torchao

    for name in names:
        manifest[name] = make_case(name, args.out)
        manifest[name]["made_with"] = f"torch {torch.__version__}, torchao {torchao.__version__}"
    ms._write_if_changed(manifest_path, (json.dumps(dict(sorted(manifest.items())), indent=1) + "\n").encode())


if __name__ == "__main__":
    main()
