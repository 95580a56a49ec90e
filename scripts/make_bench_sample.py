#!/usr/bin/env python3
"""samples/kernels/bench.default.pt2: the workloads of `bundle_launcher --bench` (scripts/gpu_check.sh).

fp16 modules with every size dynamic, so one bundle per type serves every benchmark size:
  BenchMatMul    a [m, k] @ b [k, n]
  BenchAttention scaled_dot_product_attention of q, k, v [b, h, s, 64] (no mask)
  BenchRMSNorm   x [rows, 4096] -> x * rsqrt(mean(x^2) + eps) * weight
  BenchLayerNorm x [rows, 4096] -> layer_norm(x) * weight + bias
Run under the torch venv: <venv>/bin/python scripts/make_bench_sample.py
"""
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
HIDDEN = 4096


class BenchMatMul(torch.nn.Module):
    def forward(self, a, b):
        return a @ b


class BenchAttention(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)


class BenchRMSNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(HIDDEN))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class BenchLayerNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(HIDDEN)

    def forward(self, x):
        return self.norm(x)


class Bench(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mm = BenchMatMul()
        self.attn = BenchAttention()
        self.rms = BenchRMSNorm()
        self.ln = BenchLayerNorm()

    def forward(self, a, b, q, k, v, x):
        return self.mm(a, b), self.attn(q, k, v), self.rms(x), self.ln(x)


def main():
    torch.manual_seed(0)
    h = torch.float16
    m = Bench().to(h).eval()
    inputs = (torch.randn(8, 4, dtype=h), torch.randn(4, 6, dtype=h), torch.randn(2, 2, 8, 64, dtype=h),
              torch.randn(2, 2, 8, 64, dtype=h), torch.randn(2, 2, 8, 64, dtype=h), torch.randn(3, HIDDEN, dtype=h))
    D = torch.export.Dim
    m_, k_, n_, s_, b_, h_, r_ = (D("m", min=2, max=16384), D("k", min=2, max=16384), D("n", min=2, max=16384),
                                  D("s", min=2, max=16384), D("b", min=1, max=64), D("h", min=1, max=128),
                                  D("rows", min=2, max=1 << 20))
    qkv = {0: b_, 1: h_, 2: s_}
    dyn = {"a": {0: m_, 1: k_}, "b": {0: k_, 1: n_}, "q": qkv, "k": qkv, "v": qkv, "x": {0: r_}}
    ep = torch.export.export(m, inputs, dynamic_shapes=dyn)
    path = ROOT / "samples" / "kernels" / "bench.default.pt2"
    torch.export.save(ep, str(path))
    print(f"  {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
