#!/usr/bin/env python3
"""Model zoo: real torchvision and transformers architectures through pt2onnx (run by hand, never CI).

Every model is built with random weights (torchvision `weights=None`, transformers from a small
config written here), so nothing is downloaded. Each one is exported by torch.export with a dynamic
batch dim (and a dynamic sequence length for text models), in torch.export's default IR and in core
ATen IR (`ep.run_decompositions()`), saved as `.pt2` in a cache folder outside the tree
(~/.cache/pt2onnx/zoo, or $PT2ONNX_CACHE/zoo), converted by pt2onnx, and run in onnxruntime at two
sizes of every dynamic dim; the outputs are compared with torch eager (fp32: rtol 1e-3, atol 1e-4).
torch.onnx.export (dynamo=True) runs on the same ExportedProgram for comparison. Both converters are
timed (wall time, median of --repeat runs each) and the ratio is reported.

The table is printed and written as markdown (--md, default docs/zoo.md).

Needs the torch 2.15 venv with the zoo extras: `scripts/torch_venv.sh 2.15 --zoo`.

Every converted file (ours and torch.onnx's) is also measured for the clean table (--clean-md):
nodes (graph and local functions), Constant nodes, initializers, dead nodes and unused
initializers (as the `clean` test counts them) and onnxruntime session load time (median of
--load-repeat, one thread). Each row is kept in --cache/rows/, so the table covers every model's
last run; with --reuse a rerun takes exports and torch.onnx's files from the cache and converts
with pt2onnx only.

Usage: python scripts/zoo.py --pt2onnx build/pt2onnx [--models resnet18,bert] [--irs default,core]
                             [--repeat 3] [--no-torch-onnx] [--md docs/zoo.md] [--list]
                             [--reuse] [--load-repeat 5] [--clean-md docs/clean.md [--clean-md-only]]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import torch
from torch.export import Dim

RTOL, ATOL = 1e-3, 1e-4
SEED = 1234
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "models"))  # run_clean_tests: what dead/unused mean
from compare_onnx import load_seconds  # noqa: E402  (scripts/: ORT session load time, median)

MODELS: dict[str, "ZooModel"] = {}


class ZooModel:
    """A model builder and its inputs: make(size) returns the positional inputs for size 0 (the
    export example) or 1 (the second size of every dynamic dim)."""

    def __init__(self, name, family, build, make_inputs, dynamic, input_names, tol=None):
        self.name, self.family, self.build, self.make_inputs = name, family, build, make_inputs
        self.dynamic, self.input_names = dynamic, input_names
        self.tol = tol or (RTOL, ATOL, "")


def model(name, family, input_names, dynamic, tol=None):
    def deco(fn):
        build, make_inputs = fn()
        MODELS[name] = ZooModel(name, family, build, make_inputs, dynamic, input_names, tol)
        return fn
    return deco


class Outputs(torch.nn.Module):
    """Wraps a model so that forward takes plain tensors and returns a tuple of tensors. Made by
    outputs(), whose subclass has a forward with the model's own argument names, so the exported
    program's (and the ONNX model's) inputs are called input_ids, pixel_values, ..."""

    def __init__(self, inner, kw_names, pick):
        super().__init__()
        self.inner, self.kw_names, self.pick = inner, kw_names, pick

    def call(self, *args):
        out = self.inner(**dict(zip(self.kw_names, args)))
        return tuple(self.pick(out))


def outputs(inner, kw_names, pick):
    names = ", ".join(kw_names)
    scope = {}
    exec(f"def forward(self, {names}):\n    return self.call({names})\n", scope)  # names are fixed identifiers
    cls = type("Outputs_" + "_".join(kw_names), (Outputs,), {"forward": scope["forward"]})
    return cls(inner, kw_names, pick)


def _gen(size):
    return torch.Generator().manual_seed(SEED + size)


# ----------------------------------------------------------------------------------------------
# torchvision
# ----------------------------------------------------------------------------------------------

IMG_BATCH = (2, 3)  # export example batch (not 1: torch.export would specialize it), second batch


def _vision(tv_name, hw=224):
    def builder():
        def build():
            import torchvision
            torch.manual_seed(SEED)
            m = getattr(torchvision.models, tv_name)(weights=None)
            _randomize_bn(m)
            return m.eval()

        def make_inputs(size):
            return (torch.randn(IMG_BATCH[size], 3, hw, hw, generator=_gen(size)),)
        return build, make_inputs
    return builder


def _randomize_bn(module):
    """Random init leaves BatchNorm at mean 0 / var 1; give eval-mode stats some spread. Weights
    that torchvision initialises to zero (vit_b_16's head) get small random values, so the output
    is not trivially zero."""
    g = torch.Generator().manual_seed(SEED + 7)
    for name, p in module.named_parameters():
        if p.dim() >= 2 and not p.detach().any():
            with torch.no_grad():
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)
    for m in module.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
            with torch.no_grad():
                n = m.num_features
                m.running_mean.copy_(torch.randn(n, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)


for _tv in ("resnet18", "resnet50", "mobilenet_v3_small", "efficientnet_b0", "convnext_tiny",
            "regnet_y_400mf", "densenet121", "shufflenet_v2_x1_0", "vit_b_16", "swin_t"):
    model(_tv, "torchvision", ["x"], {"x": {0: "batch"}})(_vision(_tv))


# ----------------------------------------------------------------------------------------------
# transformers (small configs, random init)
# ----------------------------------------------------------------------------------------------

TEXT_SIZES = ((2, 12), (3, 7))
DIM_MAX = {"seq": 60}  # the small configs have 64 positions (RoBERTa's start at 2)  # (batch, seq) at the export example and at the second size
VOCAB = 1000


def _text_inputs(size, with_mask=True):
    b, t = TEXT_SIZES[size]
    g = _gen(size)
    ids = torch.randint(0, VOCAB, (b, t), generator=g)
    if not with_mask:
        return (ids,)
    mask = torch.ones(b, t, dtype=torch.int64)
    mask[0, t - 2:] = 0  # some padding so the mask path is exercised
    return ids, mask


def _hf_text(make_model, with_mask=True, pick=lambda o: (o.last_hidden_state,)):
    def builder():
        def build():
            torch.manual_seed(SEED)
            m = make_model().eval()
            names = ["input_ids", "attention_mask"] if with_mask else ["input_ids"]
            return outputs(m, names, pick).eval()

        return build, lambda size: _text_inputs(size, with_mask)
    return builder


TEXT_DYN = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
IDS_DYN = {"input_ids": {0: "batch", 1: "seq"}}
SMALL = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
             vocab_size=VOCAB)


def _bert():
    from transformers import BertConfig, BertModel
    return BertModel(BertConfig(**SMALL, max_position_embeddings=64), add_pooling_layer=False)


def _roberta():
    from transformers import RobertaConfig, RobertaModel
    return RobertaModel(RobertaConfig(**SMALL, max_position_embeddings=64), add_pooling_layer=False)


def _distilbert():
    from transformers import DistilBertConfig, DistilBertModel
    return DistilBertModel(DistilBertConfig(vocab_size=VOCAB, dim=64, n_layers=2, n_heads=4,
                                            hidden_dim=128, max_position_embeddings=64))


def _gpt2():
    # Eager attention: with SDPA, torch 2.15's run_decompositions() itself fails on GPT-2 ("Cannot
    # view a tensor with shape [s33, s50, 64] and strides (64, 64*s33, 1)"), before pt2onnx runs.
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=64, n_layer=2, n_head=4, use_cache=False,
                     bos_token_id=1, eos_token_id=2)
    cfg._attn_implementation = "eager"
    return GPT2LMHeadModel(cfg)


def _decoder_cfg(cls_cfg, **extra):
    return cls_cfg(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                   use_cache=False, **extra)


def _llama():
    from transformers import LlamaConfig, LlamaForCausalLM
    return LlamaForCausalLM(_decoder_cfg(LlamaConfig))


def _mistral():
    from transformers import MistralConfig, MistralForCausalLM
    return MistralForCausalLM(_decoder_cfg(MistralConfig, sliding_window=None))


def _qwen2():
    from transformers import Qwen2Config, Qwen2ForCausalLM
    return Qwen2ForCausalLM(_decoder_cfg(Qwen2Config))


def _falcon():
    from transformers import FalconConfig, FalconForCausalLM
    return FalconForCausalLM(FalconConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2,
                                          num_attention_heads=4, max_position_embeddings=64,
                                          use_cache=False, bos_token_id=1, eos_token_id=2))


def _mixtral():
    # A Mixtral-style sparse MoE: 4 experts, 2 routed per token.
    from transformers import MixtralConfig, MixtralForCausalLM
    return MixtralForCausalLM(_decoder_cfg(MixtralConfig, num_local_experts=4, num_experts_per_tok=2,
                                           sliding_window=None))


def _t5_encoder():
    from transformers import T5Config, T5EncoderModel
    return T5EncoderModel(T5Config(vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                                   num_heads=4, use_cache=False))


def _clip_text():
    from transformers import CLIPTextConfig, CLIPTextModel
    return CLIPTextModel(CLIPTextConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=128,
                                        num_hidden_layers=2, num_attention_heads=4,
                                        max_position_embeddings=64))


LOGITS = lambda o: (o.logits,)  # noqa: E731
model("bert", "transformers", ["input_ids", "attention_mask"], TEXT_DYN)(_hf_text(_bert))
model("roberta", "transformers", ["input_ids", "attention_mask"], TEXT_DYN)(_hf_text(_roberta))
model("distilbert", "transformers", ["input_ids", "attention_mask"], TEXT_DYN)(_hf_text(_distilbert))
model("gpt2", "transformers", ["input_ids"], IDS_DYN)(_hf_text(_gpt2, False, LOGITS))
model("llama", "transformers", ["input_ids"], IDS_DYN)(_hf_text(_llama, False, LOGITS))
model("mistral", "transformers", ["input_ids"], IDS_DYN)(_hf_text(_mistral, False, LOGITS))
model("qwen2", "transformers", ["input_ids"], IDS_DYN)(_hf_text(_qwen2, False, LOGITS))
model("falcon", "transformers", ["input_ids"], IDS_DYN)(_hf_text(_falcon, False, LOGITS))
model("mixtral", "transformers", ["input_ids"], IDS_DYN)(_hf_text(_mixtral, False, LOGITS))
model("t5_encoder", "transformers", ["input_ids", "attention_mask"], TEXT_DYN)(_hf_text(_t5_encoder))
model("clip_text", "transformers", ["input_ids", "attention_mask"], TEXT_DYN)(
    _hf_text(_clip_text, True, lambda o: (o.last_hidden_state, o.pooler_output)))


def _hf_image(make_model, arg, shape, pick):
    def builder():
        def build():
            torch.manual_seed(SEED)
            return outputs(make_model().eval(), [arg], pick).eval()

        def make_inputs(size):
            return (torch.randn(IMG_BATCH[size], *shape, generator=_gen(size)),)
        return build, make_inputs
    return builder


def _hf_vit():
    from transformers import ViTConfig, ViTModel
    return ViTModel(ViTConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                              intermediate_size=128, image_size=32, patch_size=8),
                    add_pooling_layer=False)


def _clip_vision():
    from transformers import CLIPVisionConfig, CLIPVisionModel
    return CLIPVisionModel(CLIPVisionConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                            num_attention_heads=4, image_size=32, patch_size=8))


WHISPER_MELS, WHISPER_POS = 16, 32


def _whisper_encoder():
    from transformers import WhisperConfig, WhisperModel
    cfg = WhisperConfig(vocab_size=VOCAB, num_mel_bins=WHISPER_MELS, d_model=64, encoder_layers=2,
                        encoder_attention_heads=4, encoder_ffn_dim=128, decoder_layers=1,
                        decoder_attention_heads=4, decoder_ffn_dim=128,
                        max_source_positions=WHISPER_POS, max_target_positions=32, pad_token_id=0,
                        bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    return WhisperModel(cfg).get_encoder()


HIDDEN = lambda o: (o.last_hidden_state,)  # noqa: E731
BATCH_DYN = lambda arg: {arg: {0: "batch"}}  # noqa: E731
model("vit", "transformers", ["pixel_values"], BATCH_DYN("pixel_values"))(
    _hf_image(_hf_vit, "pixel_values", (3, 32, 32), HIDDEN))
model("clip_vision", "transformers", ["pixel_values"], BATCH_DYN("pixel_values"))(
    _hf_image(_clip_vision, "pixel_values", (3, 32, 32), lambda o: (o.last_hidden_state, o.pooler_output)))
# Whisper's encoder requires exactly 2 * max_source_positions frames: only the batch is dynamic.
model("whisper_encoder", "transformers", ["input_features"], BATCH_DYN("input_features"))(
    _hf_image(_whisper_encoder, "input_features", (WHISPER_MELS, 2 * WHISPER_POS), HIDDEN))


# ----------------------------------------------------------------------------------------------
# Families whose default IR keeps a composite op torch decomposes in Python (issue 30): the audio
# encoders' weight-normed position convolution (_weight_norm), MaxViT's swapaxes, MViT v2's
# tensor_split, RAFT's meshgrid, Gemma3n's erfinv, Llama 4's complex rotary table, RWKV. Tiny
# configs of the same classes (torchvision's builders take their sizes as arguments).
# ----------------------------------------------------------------------------------------------

# Dims that need more than min 1 / max DIM_MAX: audio needs enough samples for its conv stack,
# RAFT images a multiple of 8 of at least 128 (its correlation pyramid).
DIM_FACTORIES = {"samples": lambda: Dim("samples", min=400, max=4000),
                 "height": lambda: 8 * Dim("h8", min=16, max=32), "width": lambda: 8 * Dim("w8", min=16, max=32)}
AUDIO_SIZES = ((2, 400), (3, 720))


def _audio(cls_name, dynamic_length=True, **extra):
    def builder():
        def build():
            import transformers
            torch.manual_seed(SEED)
            cfg = getattr(transformers, cls_name + "Config")(
                hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, conv_dim=(16, 16),
                conv_kernel=(10, 3), conv_stride=(5, 2), num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, **extra)
            return outputs(getattr(transformers, cls_name + "Model")(cfg).eval(), ["input_values"], HIDDEN).eval()

        def make_inputs(size):
            b, t = AUDIO_SIZES[size]
            return (torch.randn(b, t if dynamic_length else AUDIO_SIZES[0][1], generator=_gen(size)),)
        return build, make_inputs
    return builder


AUDIO_DYN = {"input_values": {0: "batch", 1: "samples"}}
model("wav2vec2", "transformers", ["input_values"], AUDIO_DYN)(_audio("Wav2Vec2"))
model("hubert", "transformers", ["input_values"], AUDIO_DYN)(_audio("Hubert"))
# WavLM's relative position buckets and SEW's squeeze put guards on the length that export cannot
# prove over a range: only the batch is dynamic.
model("wavlm", "transformers", ["input_values"], BATCH_DYN("input_values"))(
    _audio("WavLM", dynamic_length=False, num_buckets=32, max_bucket_distance=64))
model("sew", "transformers", ["input_values"], BATCH_DYN("input_values"))(_audio("SEW", dynamic_length=False, squeeze_factor=2))


def _tiny_maxvit():
    from torchvision.models.maxvit import MaxVit
    return MaxVit(input_size=(64, 64), stem_channels=16, partition_size=4, block_channels=[16, 32], block_layers=[1, 1],
                  head_dim=8, stochastic_depth_prob=0.0, num_classes=10)


def _tiny_mvit():
    from torchvision.models.video.mvit import MSBlockConfig, MViT
    blocks = [MSBlockConfig(num_heads=1, input_channels=16, output_channels=16, kernel_q=[3, 3, 3], kernel_kv=[3, 3, 3],
                            stride_q=[1, 1, 1], stride_kv=[1, 2, 2]),
              MSBlockConfig(num_heads=2, input_channels=16, output_channels=32, kernel_q=[3, 3, 3], kernel_kv=[3, 3, 3],
                            stride_q=[1, 2, 2], stride_kv=[1, 1, 1])]
    return MViT(spatial_size=(32, 32), temporal_size=4, block_setting=blocks, residual_pool=True,
                residual_with_cls_embed=False, rel_pos_embed=True, proj_after_attn=True, num_classes=10,
                patch_embed_kernel=(3, 7, 7), patch_embed_stride=(2, 4, 4), patch_embed_padding=(1, 3, 3))


def _tiny_vision(make, shape):
    def builder():
        def build():
            torch.manual_seed(SEED)
            m = make()
            _randomize_bn(m)
            return m.eval()

        return build, lambda size: (torch.randn(IMG_BATCH[size], *shape, generator=_gen(size)),)
    return builder


model("maxvit_tiny", "torchvision", ["x"], {"x": {0: "batch"}})(_tiny_vision(_tiny_maxvit, (3, 64, 64)))
model("mvit_v2_tiny", "torchvision", ["x"], {"x": {0: "batch"}})(_tiny_vision(_tiny_mvit, (3, 4, 32, 32)))


class _RaftFlow(torch.nn.Module):
    """RAFT's last flow estimate after two refinement steps."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, image1, image2):
        return self.inner(image1, image2, num_flow_updates=2)[-1]


RAFT_SIZES = ((128, 128), (160, 192))


def _raft():
    def build():
        from torchvision.models.optical_flow import raft_small
        torch.manual_seed(SEED)
        m = raft_small(weights=None)
        _randomize_bn(m)
        return _RaftFlow(m.eval()).eval()

    def make_inputs(size):
        h, w = RAFT_SIZES[size]
        g = _gen(size)
        return torch.randn(2, 3, h, w, generator=g), torch.randn(2, 3, h, w, generator=g)
    return build, make_inputs


# RAFT splits a concatenated batch back in two, which export specializes: the image size is the
# dynamic dim instead.
RAFT_DYN = {n: {2: "height", 3: "width"} for n in ("image1", "image2")}
model("raft_small", "torchvision", ["image1", "image2"], RAFT_DYN)(_raft)


def _gemma3n():
    from transformers import Gemma3nForCausalLM, Gemma3nTextConfig
    return Gemma3nForCausalLM(Gemma3nTextConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=4, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, max_position_embeddings=64, vocab_size_per_layer_input=VOCAB,
        hidden_size_per_layer_input=16, num_kv_shared_layers=2, laurel_rank=8, sliding_window=16, use_cache=False,
        altup_num_inputs=2, activation_sparsity_pattern=[0.95, 0.95, 0.0, 0.0],  # erfinv: the sparse layers' cutoff
        layer_types=["sliding_attention", "full_attention"] * 2))


def _llama4():
    from transformers import Llama4ForCausalLM, Llama4TextConfig
    return Llama4ForCausalLM(Llama4TextConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, intermediate_size_mlp=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=64, num_local_experts=4,
        num_experts_per_tok=1, use_cache=False, attention_chunk_size=16))


def _gemma3():
    # Sliding and full attention layers; the window (8) is shorter than the first size's sequence (12).
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig
    return Gemma3ForCausalLM(Gemma3TextConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=4, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, query_pre_attn_scalar=16, max_position_embeddings=64,
        sliding_window=8, use_cache=False, layer_types=["sliding_attention", "full_attention"] * 2))


def _rwkv():
    from transformers import RwkvConfig, RwkvModel
    return RwkvModel(RwkvConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, attention_hidden_size=64,
                                intermediate_size=128, context_length=64, use_cache=False))


model("gemma3n", "transformers", ["input_ids"], IDS_DYN)(_hf_text(_gemma3n, False, LOGITS))
model("llama4", "transformers", ["input_ids"], IDS_DYN)(_hf_text(_llama4, False, LOGITS))
model("gemma3", "transformers", ["input_ids"], IDS_DYN)(_hf_text(_gemma3, False, LOGITS))
# RWKV's CPU path loops over the sequence in Python, so export fixes its length: batch only.
RWKV_SIZES = ((2, 12), (3, 12))
model("rwkv", "transformers", ["input_ids"], BATCH_DYN("input_ids"))(
    lambda: (_hf_text(_rwkv, False, HIDDEN)()[0],
             lambda size: (torch.randint(0, VOCAB, RWKV_SIZES[size], generator=_gen(size)),)))


# ----------------------------------------------------------------------------------------------
# Running one model
# ----------------------------------------------------------------------------------------------


def export(zm, module, inputs):
    dims = {}
    dyn = []
    for name in zm.input_names:
        spec = {}
        for axis, dname in zm.dynamic.get(name, {}).items():
            if dname not in dims:
                dims[dname] = DIM_FACTORIES[dname]() if dname in DIM_FACTORIES else Dim(dname, min=1, max=DIM_MAX.get(dname, 512))
            spec[axis] = dims[dname]
        dyn.append(spec or None)
    shapes = tuple(dyn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.export.export(module, inputs, dynamic_shapes=shapes, strict=False)


def _as_tuple(out):
    return (out,) if isinstance(out, torch.Tensor) else tuple(out)


def graph_stats(ep):
    nodes = [n for n in ep.graph.nodes if n.op == "call_function"]
    return len(nodes), len({str(n.target) for n in nodes})


def run_ort(path, input_names, inputs):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]  # state inputs, with their initializer as default, are not listed
    feed = {}
    for i, n in enumerate(names):
        feed[n] = inputs[input_names.index(n)].numpy() if n in input_names else inputs[i].numpy()
    # The state updates (`<input>.new`, checked by the state tests) are not torch's user outputs.
    outputs = [o.name for o in sess.get_outputs() if not o.name.endswith(".new")]
    return sess.run(outputs, feed)


def compare(got, want, rtol, atol):
    """max abs error over all outputs, and whether every one is within tolerance."""
    if len(got) != len(want):
        return float("inf"), f"{len(got)} outputs, torch has {len(want)}"
    worst, bad = 0.0, ""
    for i, (g, w) in enumerate(zip(got, want)):
        w = w.detach().numpy()
        if g.shape != w.shape:
            return float("inf"), f"output {i}: shape {g.shape}, torch {w.shape}"
        err = float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))) if g.size else 0.0
        worst = max(worst, err)
        if not np.allclose(g, w, rtol=rtol, atol=atol):
            bad = bad or f"output {i}: max abs err {err:.3g} over tolerance"
    return worst, bad


def dim_params(path):
    """Names of the dim_params of the ONNX graph inputs, and the count of dims that are fixed."""
    import onnx
    m = onnx.load(str(path), load_external_data=False)
    out = {}
    for vi in m.graph.input:
        out[vi.name] = [d.dim_param if d.dim_param else d.dim_value for d in vi.type.tensor_type.shape.dim]
    return out


def timed(fn, repeat):
    times = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def _load_or_make_io(zm, args, cache):
    """(module or None, inputs at both sizes, torch eager outputs); cached with --reuse."""
    io_path = cache / f"{zm.name}.io.pt"
    if args.reuse and io_path.exists():
        inputs, eager = torch.load(io_path)
        return None, inputs, eager
    module = zm.build()
    inputs = [zm.make_inputs(0), zm.make_inputs(1)]
    with torch.no_grad():
        eager = [_as_tuple(module(*x)) for x in inputs]
    torch.save((inputs, eager), io_path)
    return module, inputs, eager


def run_model(zm, irs, args, cache):
    """One row per IR. With --reuse, the .pt2 exports, the eager outputs and torch.onnx.export's
    files (with its result) come from the cache when present, so a rerun converts with pt2onnx
    only; without it everything is made again and the cache refreshed."""
    rows = []
    module, inputs, eager = _load_or_make_io(zm, args, cache)
    ep_default = None
    for ir in irs:
        row = dict(model=zm.name, ir=ir)
        rows.append(row)
        pt2 = cache / f"{zm.name}.{ir}.pt2"
        meta = cache / f"{zm.name}.{ir}.export.json"
        ep = None
        if args.reuse and pt2.exists() and meta.exists():
            row.update(json.loads(meta.read_text()))
        else:
            try:
                if ep_default is None:
                    if module is None:
                        module = zm.build()
                    ep_default = export(zm, module, inputs[0])
                ep = ep_default if ir == "default" else ep_default.run_decompositions()
            except Exception as e:
                row["result"] = f"export failed: {_short(e)}"
                print(fmt_row(row), flush=True)
                continue
            row["nodes"], row["ops"] = graph_stats(ep)
            torch.export.save(ep, str(pt2))
            meta.write_text(json.dumps({"nodes": row["nodes"], "ops": row["ops"]}))
        onnx_path = cache / f"{zm.name}.{ir}.onnx"
        run_pt2onnx(zm, row, pt2, onnx_path, inputs, eager, args)
        if args.torch_onnx:
            tpath = cache / f"{zm.name}.{ir}.torch.onnx"
            tmeta = cache / f"{zm.name}.{ir}.torch.json"
            if args.reuse and tmeta.exists():
                row.update(json.loads(tmeta.read_text()))
            else:
                if ep is None:
                    ep = torch.export.load(str(pt2))
                run_torch_onnx(zm, row, ep, tpath, inputs, eager, args)
                tmeta.write_text(json.dumps({k: row[k] for k in ("t_torch", "torch_result", "torch_err")
                                             if k in row}))
            if tpath.exists() and "t_torch" in row:
                row["torch_graph"] = onnx_stats(tpath, args.load_repeat)
        if row.get("t_pt2onnx") and row.get("t_torch"):
            row["ratio"] = row["t_torch"] / row["t_pt2onnx"]
        if row.get("t_pt2onnx"):
            row["graph"] = onnx_stats(onnx_path, args.load_repeat)
        (cache / "rows").mkdir(exist_ok=True)
        (cache / "rows" / f"{zm.name}.{ir}.json").write_text(json.dumps(row, indent=1) + "\n")
        print(fmt_row(row), flush=True)
        if "graph" in row:
            print("    " + clean_cells_line(row), flush=True)
    return rows


def onnx_stats(path, load_repeat):
    """What the clean table shows of one ONNX file: nodes of the graph and of its local functions
    (Constant nodes among them), initializers, dead nodes and unused initializers (as the `clean`
    test counts them) and onnxruntime session load time (median of load_repeat, one thread)."""
    import onnx
    from run_clean_tests import clean_problems
    m = onnx.load(str(path))
    problems = clean_problems(m)
    nodes = list(m.graph.node) + [n for f in m.functions for n in f.node]
    return {
        "nodes": len(nodes),
        "function_nodes": sum(len(f.node) for f in m.functions),
        "constants": sum(n.op_type == "Constant" for n in nodes),
        "initializers": len(m.graph.initializer),
        "dead": sum("dead node" in p for p in problems),
        "unused_initializers": sum("initializer" in p for p in problems),
        "load_s": load_seconds(path, load_repeat),
        "ops": dict(sorted(__import__("collections").Counter(n.op_type for n in nodes).items())),
    }


def run_pt2onnx(zm, row, pt2, onnx_path, inputs, eager, args):
    cmd = [args.pt2onnx, str(pt2), "-o", str(onnx_path), "--opset", str(args.opset), "-q"]

    def once():
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    t, p = timed(once, args.repeat)
    if p.returncode != 0:
        row["result"] = f"convert failed ({p.returncode}): {p.stderr.strip()[:400]}"
        return
    row["t_pt2onnx"] = t
    rtol, atol, _ = zm.tol
    worst, problems = 0.0, []
    dparams = dim_params(onnx_path)
    graph_inputs = list(dparams.values())  # the user inputs, in order
    for pos, name in enumerate(zm.input_names):
        for axis in zm.dynamic.get(name, {}):
            d = graph_inputs[pos][axis] if pos < len(graph_inputs) else None
            if not isinstance(d, str) or not d:
                problems.append(f"{name} dim {axis} is {d!r}, not a dim_param")
    row["dims"] = ", ".join(f"{n}[{','.join(map(str, d))}]" for n, d in dparams.items())
    for size, (x, want) in enumerate(zip(inputs, eager)):
        try:
            got = run_ort(onnx_path, zm.input_names, x)
        except Exception as e:
            problems.append(f"onnxruntime at size {size}: {_short(e)}")
            continue
        err, bad = compare(got, want, rtol, atol)
        worst = max(worst, err)
        if bad:
            problems.append(f"size {size}: {bad}")
    row["err"] = worst
    row["result"] = "ok" if not problems else "MISMATCH: " + "; ".join(problems)


def run_torch_onnx(zm, row, ep, path, inputs, eager, args):
    def once():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(ep, (), str(path), dynamo=True, opset_version=args.opset,
                              input_names=zm.input_names, external_data=False)

    try:
        t, _ = timed(once, args.repeat)
    except Exception as e:
        row["torch_result"] = f"failed: {_short(e)}"
        return
    row["t_torch"] = t
    try:
        worst, bad = 0.0, ""
        for x, want in zip(inputs, eager):
            err, b = compare(run_ort(path, zm.input_names, x), want, *zm.tol[:2])
            worst, bad = max(worst, err), bad or b
        row["torch_result"] = "ok" if not bad else f"mismatch ({bad})"
        row["torch_err"] = worst
    except Exception as e:
        row["torch_result"] = f"runs: {_short(e)}"


def _short(e):
    s = re.sub(r"\x1b\[[0-9;]*m", "", f"{type(e).__name__}: {e}")  # no terminal colours
    s = " ".join(s.split())
    return s[:300]


# ----------------------------------------------------------------------------------------------
# Small zoo models as CI samples (--samples-out)
# ----------------------------------------------------------------------------------------------

SAMPLE_MODELS = ("bert", "llama", "t5_encoder", "whisper_encoder", "falcon", "mixtral")  # tiny configs, < 1 MB each


def write_samples(names, irs, out_dir: Path):
    """Saves each model in each IR to out_dir/<model>.<ir>.pt2 with <stem>.io.npz (inputs and torch
    eager outputs at both sizes, make_samples.py's layout) and out_dir/MANIFEST.json, so
    tests/models/run_model_tests.py checks them like the main samples."""
    import collections
    import hashlib
    import make_samples as ms

    out_dir.mkdir(parents=True, exist_ok=True)
    manifest_path = out_dir / "MANIFEST.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    manifest.setdefault("samples", {})
    manifest.update({"generator": "scripts/zoo.py --samples-out",
                     "tolerance": {"rtol": 1e-4, "atol": 1e-5}})
    for name in names:
        zm = MODELS[name]
        module = zm.build()
        inputs = [zm.make_inputs(0), zm.make_inputs(1)]
        with torch.no_grad():
            eager = [[ms._np(t) for t in _as_tuple(module(*x))] for x in inputs]
        ep_default = export(zm, module, inputs[0])
        for ir in irs:
            ep = ep_default if ir == "default" else ep_default.run_decompositions()
            ms._stabilize_provenance(ep)
            stem = f"zoo_{name}.{ir}"
            pt2, npz = out_dir / f"{stem}.pt2", out_dir / f"{stem}.io.npz"
            with tempfile.TemporaryDirectory() as td:  # same file name: it becomes the archive's folder
                tmp = Path(td) / pt2.name
                torch.export.save(ep, str(tmp))
                data = tmp.read_bytes()
            if not (pt2.exists() and ms._zip_content(pt2.read_bytes()) == ms._zip_content(data)):
                ms._write_if_changed(pt2, data)
            arrays = {}
            for prefix, x, want in (("", inputs[0], eager[0]), ("b2_", inputs[1], eager[1])):
                arrays.update({f"{prefix}input_{k}": ms._np(t) for k, t in enumerate(x)})
                arrays.update({f"{prefix}output_{k}": o for k, o in enumerate(want)})
            ms._write_if_changed(npz, ms._npz_bytes(arrays))
            info = ms.inspect_archive(pt2)
            user_in, user_out = ms._signature_names(ep)
            hist = collections.Counter(str(n.target) for n in ep.graph.nodes if n.op == "call_function")
            manifest["samples"][stem] = {
                "file": pt2.name,
                "io_file": npz.name,
                "model": f"zoo_{name}",
                "ir": ir,
                "torch_version": torch.__version__,
                **ms.archive_fields(info, conventions=False),
                "made_by": {"script": "scripts/zoo.py", "function": f"MODELS[{name!r}]", "seed": SEED,
                            "ir_step": "torch.export.export" + (" + run_decompositions()" if ir == "core" else "")},
                "user_inputs": user_in,
                "user_outputs": user_out,
                "input_shapes": {user_in[k]: list(t.shape) for k, t in enumerate(inputs[0])},
                "input_dtypes": {user_in[k]: str(ms._np(t).dtype) for k, t in enumerate(inputs[0])},
                "output_count": len(eager[0]),
                "dynamic_dims": {user_in[zm.input_names.index(arg)]: {str(a): {"name": d} for a, d in dims.items()}
                                 for arg, dims in zm.dynamic.items()},
                "range_constraints": {str(k): [str(v.lower), str(v.upper)] for k, v in ep.range_constraints.items()},
                "has_second_batch": True,
                "sha256": hashlib.sha256(pt2.read_bytes()).hexdigest(),
                "bytes": pt2.stat().st_size,
                "op_histogram": dict(sorted(hist.items())),
            }
            print(f"  {pt2} ({pt2.stat().st_size} bytes) + {npz.name}", flush=True)
    manifest["samples"] = dict(sorted(manifest["samples"].items()))
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {manifest_path}")


# ----------------------------------------------------------------------------------------------
# Table
# ----------------------------------------------------------------------------------------------

COLUMNS = ["model", "IR", "nodes", "ops", "pt2onnx", "max abs err", "pt2onnx s", "torch.onnx.export",
           "torch.onnx s", "ratio"]


def cells(row):
    def f(v, spec):
        return format(v, spec) if isinstance(v, (int, float)) else "–"
    res = row.get("result", "–")
    return [row["model"], row["ir"], f(row.get("nodes"), "d"), f(row.get("ops"), "d"), res,
            f(row.get("err"), ".2e"), f(row.get("t_pt2onnx"), ".3f"),
            row.get("torch_result", "–") + (f" ({row['torch_err']:.1e})" if "torch_err" in row else ""),
            f(row.get("t_torch"), ".2f"), (f(row.get("ratio"), ".0f") + "x") if "ratio" in row else "–"]


def fmt_row(row):
    return " | ".join(str(c) for c in cells(row))


def markdown(rows, args):
    import onnxruntime
    import transformers
    import torchvision
    lines = [
        "# Model zoo",
        "",
        "Generated by `scripts/zoo.py` (run by hand; not CI). Real torchvision and transformers",
        "architectures with random weights (transformers from small configs), exported by torch.export",
        "with a dynamic batch (and sequence length for text), in the default IR and in core ATen IR",
        "(`run_decompositions()`). pt2onnx's ONNX runs in onnxruntime at two sizes of every dynamic dim",
        f"(images: batch {IMG_BATCH[0]} and {IMG_BATCH[1]}; text: (batch, seq) {TEXT_SIZES[0]} and",
        f"{TEXT_SIZES[1]}) and is compared with torch eager: fp32 rtol {RTOL:g}, atol {ATOL:g}; `ok` means both",
        "sizes are within tolerance and every dynamic input dim is a `dim_param`. *max abs err* is the worst",
        "over both sizes and all outputs. Times are wall-clock medians of "
        f"{args.repeat} runs: pt2onnx as a process",
        "(reading the `.pt2`, writing the `.onnx`), torch.onnx.export (`dynamo=True`, default options) on",
        "the same in-memory ExportedProgram; *ratio* = torch.onnx.export time / pt2onnx time. *nodes* and",
        "*ops* count the call_function nodes and distinct targets of the exported graph. The machine",
        "is a shared 2-core box (other builds ran at the same time), so times are noisy; both converters",
        "ran under the same load, interleaved per model.",
        "",
        f"torch {torch.__version__}, torchvision {torchvision.__version__}, transformers "
        f"{transformers.__version__}, onnxruntime {onnxruntime.__version__}, opset {args.opset},"
        f" torch threads {torch.get_num_threads()}.",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join("---" for _ in COLUMNS) + "|",
    ]
    table = [cells(r) if isinstance(r, dict) else r for r in rows]
    for row in table:
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
    ratios = [float(r[9][:-1]) for r in table if r[9].endswith("x")]
    ok = sum(1 for r in table if r[4] == "ok")
    lines += ["", f"{ok} of {len(table)} rows ok."]
    if ratios:
        lines.append(f"Time ratio: min {min(ratios):.0f}x, median {statistics.median(ratios):.0f}x, "
                     f"max {max(ratios):.0f}x.")
    lines += [
        "",
        "Notes:",
        "- `–` under torch.onnx.export: that row comes from a run with `--no-torch-onnx` (pt2onnx only).",
        "- GPT-2 uses eager attention: with SDPA, torch's own `run_decompositions()` fails on it (\"Cannot",
        "  view a tensor with shape [s33, s50, 64] and strides (64, 64*s33, 1)\") before pt2onnx runs.",
        "- Whisper's encoder needs exactly 2 x max_source_positions frames, so only its batch is dynamic.",
        "- Random init gives tiny logits for some CNNs (mobilenet_v3_small ~1e-3), hence tiny errors;",
        "  the tolerance is relative too (rtol 1e-3).",
    ]
    return "\n".join(lines) + "\n"


CLEAN_BEGIN = "<!-- zoo.py --clean-md: begin -->"
CLEAN_END = "<!-- zoo.py --clean-md: end -->"
CLEAN_COLUMNS = ["model", "IR", "nodes", "torch.onnx nodes", "ours - torch.onnx by op", "Constant",
                 "initializers", "dead", "unused init", "max abs err", "torch.onnx err",
                 "ORT load s", "torch.onnx load s"]


def op_difference(ours, theirs, limit=6):
    """`+3 Transpose, -2 Gemm`: where the op histograms differ, largest first."""
    keys = set(ours) | set(theirs)
    diff = sorted(((ours.get(k, 0) - theirs.get(k, 0), k) for k in keys), key=lambda d: (-abs(d[0]), d[1]))
    diff = [d for d in diff if d[0]]
    text = ", ".join(f"{n:+d} {k}" for n, k in diff[:limit])
    return text + (f", ... ({len(diff) - limit} more)" if len(diff) > limit else "") if diff else "same ops"


def clean_cells(row):
    g, t = row.get("graph"), row.get("torch_graph")
    if not g:
        return [row["model"], row["ir"], row.get("result", "–")] + ["–"] * (len(CLEAN_COLUMNS) - 3)

    def pair(key):
        return f"{g[key]} / {t[key]}" if t else f"{g[key]}"
    tnodes = t["nodes"] if t else None
    nodes = f"**{g['nodes']}**" if tnodes is not None and g["nodes"] > tnodes else str(g["nodes"])
    err = f"{row['err']:.1e}" if row.get("result") == "ok" else row.get("result", "–")
    return [row["model"], row["ir"], nodes, str(tnodes) if t else "–",
            op_difference(g["ops"], t["ops"]) if t else "–", pair("constants"), pair("initializers"),
            pair("dead"), pair("unused_initializers"), err,
            f"{row['torch_err']:.1e}" if "torch_err" in row else row.get("torch_result", "–")[:70],
            f"{g['load_s']:.3f}", f"{t['load_s']:.3f}" if t else "–"]


def clean_cells_line(row):
    return " | ".join(clean_cells(row))


def table_lines(text):
    """The rows already in a clean table between the markers, by (model, IR): a model whose
    cache row is missing (a cache made elsewhere, or only some models rerun) keeps its line."""
    if CLEAN_BEGIN not in text or CLEAN_END not in text:
        return {}
    body = text[text.index(CLEAN_BEGIN):text.index(CLEAN_END)]
    rows = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) == len(CLEAN_COLUMNS) and cells[0] in MODELS:
            rows[(cells[0], cells[1])] = line
    return rows


def _line_nodes(line):
    """(ours, torch.onnx's) node counts of a kept table line; torch.onnx's None without a file."""
    cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
    ours, theirs = cells[2].strip("*"), cells[3]
    return (int(ours), int(theirs)) if ours.isdigit() and theirs.isdigit() else (None, None)


def clean_markdown(cache: Path, irs, kept=None):
    """The clean table from the rows of the last run of each model (cache/rows/*.json); `kept`
    (table_lines of the current table) fills in the models the cache has no row for, and a model
    and IR in neither is left out (the issue-30 families run in the default IR only)."""
    kept = kept or {}
    rows, totals = [], []  # totals: (model, IR, ours, theirs) of the rows with both converters
    for name in MODELS:
        for ir in irs:
            f = cache / "rows" / f"{name}.{ir}.json"
            if f.exists():
                r = json.loads(f.read_text())
                rows.append("| " + " | ".join(c.replace("|", "\\|") for c in clean_cells(r)) + " |")
                if r.get("graph") and r.get("torch_graph"):
                    totals.append((name, ir, r["graph"]["nodes"], r["torch_graph"]["nodes"]))
            elif (name, ir) in kept:
                rows.append(kept[(name, ir)])
                ours, theirs = _line_nodes(kept[(name, ir)])
                if ours is not None:
                    totals.append((name, ir, ours, theirs))
    larger = [f"{m}.{ir}" for m, ir, a, b in totals if a > b]
    ours = sum(t[2] for t in totals)
    theirs = sum(t[3] for t in totals)
    lines = [CLEAN_BEGIN, "",
             "| " + " | ".join(CLEAN_COLUMNS) + " |", "|" + "|".join("---" for _ in CLEAN_COLUMNS) + "|"]
    lines += rows
    lines += ["", f"{len(totals)} rows with both converters: {ours} nodes ours, {theirs} torch.onnx's; "
              f"ours larger on {len(larger)} ({', '.join(larger) or 'none'}).",
              "", CLEAN_END]
    return "\n".join(lines)


def write_clean_md(path: Path, cache: Path, irs):
    text = path.read_text() if path.exists() else ""
    table = clean_markdown(cache, irs, table_lines(text))
    if CLEAN_BEGIN in text and CLEAN_END in text:
        text = text[:text.index(CLEAN_BEGIN)] + table + text[text.index(CLEAN_END) + len(CLEAN_END):]
    else:
        text = text + ("\n" if text else "") + table + "\n"
    path.write_text(text)
    print(f"wrote the clean table into {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pt2onnx", default=str(ROOT / "build" / "pt2onnx"))
    ap.add_argument("--models", default="", help="comma-separated names (default: all; see --list)")
    ap.add_argument("--irs", default="default,core")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--opset", type=int, default=18)
    ap.add_argument("--no-torch-onnx", dest="torch_onnx", action="store_false")
    ap.add_argument("--md", default=str(ROOT / "docs" / "zoo.md"), help="markdown output ('' for none)")
    ap.add_argument("--cache", default=os.path.join(os.environ.get("PT2ONNX_CACHE", Path.home() / ".cache/pt2onnx"), "zoo"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--reuse", action="store_true", help="take the .pt2 exports, eager outputs and "
                    "torch.onnx.export's files from --cache where present (pt2onnx always runs)")
    ap.add_argument("--load-repeat", type=int, default=5, help="onnxruntime session loads per file (median)")
    ap.add_argument("--clean-md", default="", help="write the clean table (node counts, dead nodes, unused "
                    "initializers, load times beside torch.onnx's) of every model's last run in --cache "
                    "between the markers of this file (e.g. docs/clean.md)")
    ap.add_argument("--clean-md-only", action="store_true", help="only write --clean-md from the cache")
    ap.add_argument("--render-from", nargs="*", default=[], metavar="LOG",
                    help="only write --md from the table lines this script printed into LOG files")
    ap.add_argument("--samples-out", default="", help="write the small models (--models, default "
                    f"{','.join(SAMPLE_MODELS)}) as CI samples to this folder (e.g. samples/zoo) and stop")
    args = ap.parse_args()
    if args.list:
        for n, zm in MODELS.items():
            print(f"{n:20s} {zm.family:12s} dynamic {zm.dynamic}")
        return 0
    torch.set_num_threads(args.threads)
    if args.clean_md_only:
        write_clean_md(Path(args.clean_md), Path(args.cache), [i for i in args.irs.split(",") if i])
        return 0
    if args.render_from:
        rows = []
        for log in args.render_from:
            for line in Path(log).read_text().splitlines():
                parts = re.sub(r"\x1b\[[0-9;]*m", "", line).split(" | ")
                if len(parts) == len(COLUMNS) and parts[0] in MODELS:
                    rows.append(parts)
        # One row per (model, IR): a row with a time ratio wins over a pt2onnx-only one.
        best = {}
        for r in rows:
            key = (r[0], r[1])
            if key not in best or (not best[key][9].endswith("x") and r[9].endswith("x")):
                best[key] = r
        order = {n: i for i, n in enumerate(MODELS)}
        rows = sorted(best.values(), key=lambda r: (order[r[0]], r[1] != "default"))
        Path(args.md).parent.mkdir(parents=True, exist_ok=True)
        Path(args.md).write_text(markdown(rows, args))
        print(f"wrote {args.md} ({len(rows)} rows)")
        return 0
    if args.samples_out:
        write_samples([n for n in args.models.split(",") if n] or list(SAMPLE_MODELS),
                      [i for i in args.irs.split(",") if i], Path(args.samples_out))
        return 0
    names = [n for n in args.models.split(",") if n] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown models {unknown}; known: {', '.join(MODELS)}")
    irs = [i for i in args.irs.split(",") if i]
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    rows = []
    print(" | ".join(COLUMNS), flush=True)
    for n in names:
        try:
            rows += run_model(MODELS[n], irs, args, cache)
        except Exception as e:
            traceback.print_exc()
            rows.append(dict(model=n, ir=",".join(irs), result=f"script error: {_short(e)}"))
    if args.md:
        Path(args.md).parent.mkdir(parents=True, exist_ok=True)
        Path(args.md).write_text(markdown(rows, args))
        print(f"wrote {args.md}")
    if args.clean_md:
        write_clean_md(Path(args.clean_md), cache, irs)
    return 0 if all(r.get("result") == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
