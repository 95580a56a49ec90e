#!/usr/bin/env python3
"""Makes the state samples in samples/state/ with real torch 2.15 and transformers (tooling only).

Two kinds of samples, each exported in the default IR (`<name>.default.pt2`, torch.export.export,
not functional: in-place ops on buffers and inputs) and in core ATen IR (`<name>.core.pt2`,
run_decompositions(), functional: BUFFER_MUTATION / USER_INPUT_MUTATION outputs):

- Programs that update state (a buffer, a user input) with the cache-update ops (add_, copy_,
  index_copy_, index_put_ with indices in any position, slice/select writes at positions read from
  a tensor, scatter_ along the sequence dim, a sliding window). `<stem>.io.npz` holds three chained
  calls of eager torch: `call<c>_input_<i>` (user inputs; a mutated one as torch's previous call
  left it), `call<c>_output_<j>` (user outputs) and `call<c>_state.<target>` (each buffer FQN or
  user input name after the call). tests/models/run_state_tests.py feeds the ONNX state outputs
  back by `pkg.pt2onnx.state` and compares every output after each call.
- LLM decode loops with tiny random-weight transformers models (Llama, Qwen2): `<family>_static`
  is the StaticCache export of transformers.integrations.executorch.
  TorchExportableModuleForDecoderOnlyLM (cache in buffers, updated with index_copy_), one token a
  step; `<family>_dynamic` takes and returns the DynamicCache as tensors with a dynamic past length
  (the prompt in one step from an empty cache, then one token a step); `qwen2_sliding` is the
  StaticCache export of a Qwen2 whose second layer has a sliding window of 6 (transformers'
  hybrid cache, a static sliding-window layer), default IR only. `<stem>.decode.npz` holds
  the prompt, torch's greedy tokens fed at each step (`tokens`) and the last position's logits of
  every step (`logits`, [steps, vocab]).

samples/state/state_samples.json lists them (not MANIFEST.json, which run_model_tests.py reads) (what each covers, its state targets, the call counts).

Usage: python make_state_samples.py [--out samples/state] [--only name,name]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
from torch.export import Dim

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_samples as ms  # noqa: E402  (shared helpers: provenance, byte-stable writes)

IRS = ("default", "core")
CALLS = 3
PROMPT = [5, 17, 42, 99]
NEW_TOKENS = 16
MAX_CACHE = 24
EXPORT_RTOL, EXPORT_ATOL = 1e-5, 1e-6

STATE_CASES = {}


def case(name):
    def register(cls):
        assert cls.__doc__ and "\n" not in cls.__doc__.strip(), f"{name}: needs a one-line docstring"
        STATE_CASES[name] = cls
        return cls

    return register


def seed_of(name):
    return ms.SEED + zlib.crc32(name.encode()) % 100_000


# ----------------------------------------------------------------------------------------------
# Programs that update state
# ----------------------------------------------------------------------------------------------


@case("buffer_counter")
class BufferCounter(nn.Module):
    """A running-sum buffer updated with add_ and read after the update, a step counter buffer (int64) with fill-by-add."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("total", torch.zeros(4))
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))

    def forward(self, x):
        self.total.add_(x.sum(0))
        self.steps.add_(1)
        return self.lin(x) + self.total / self.steps

    @staticmethod
    def inputs(gen, call):
        return (torch.randn(3, 4, generator=gen),)


@case("batchnorm_train")
class BatchNormTrain(nn.Module):
    """Training-mode BatchNorm2d after a conv and BatchNorm1d (momentum 0.3) on [N, C]: running statistics updated and read after the update."""

    TRAIN = True

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.bn1d = nn.BatchNorm1d(4, momentum=0.3)

    def forward(self, x):
        y = self.bn(self.conv(x)).relu()
        z = self.bn1d(y.mean((2, 3)))
        return y, z + self.bn.running_mean * 0.5

    @staticmethod
    def inputs(gen, call):
        return (torch.randn(2, 3, 5, 5, generator=gen) * (1 + call),)


@case("parameter_rescale")
class ParameterRescale(nn.Module):
    """Parameters updated in place in eval mode (RWKV's rescale: weight.div_ under no_grad): a Linear's, read after the update, and a conv's after its use (the next call reads it; an eval BatchNorm after the conv must not fold it)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 1)
        self.bn = nn.BatchNorm2d(4)
        self.lin = nn.Linear(4, 3)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-1, 1)
            self.bn.running_var.uniform_(0.5, 2)

    def forward(self, x):
        y = self.bn(self.conv(x)).mean((2, 3))
        with torch.no_grad():
            self.lin.weight.div_(2)
            self.conv.weight.mul_(0.75)
        return self.lin(y)

    @staticmethod
    def inputs(gen, call):
        return (torch.randn(2, 2, 3, 3, generator=gen),)


@case("input_mutation")
class InputMutation(nn.Module):
    """User inputs updated in place (x.add_(1) then read, a row of y written through a view) and returned as new state."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x, y, z):
        x.add_(1)
        y[0] = x[1] * 0.5
        return self.lin(x) + y.sum(), z * 2

    @staticmethod
    def inputs(gen, call):
        return (torch.randn(2, 4, generator=gen), torch.randn(3, 4, generator=gen), torch.randn(2, generator=gen))


class _KVCache(nn.Module):
    """A one-layer attention with a key/value cache buffer [1, heads, slots, head_dim]."""

    HEADS, SLOTS, DIM = 2, 6, 4

    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)
        self.k = nn.Linear(8, 8)
        self.v = nn.Linear(8, 8)
        self.register_buffer("keys", torch.zeros(1, self.HEADS, self.SLOTS, self.DIM))
        self.register_buffer("values", torch.zeros(1, self.HEADS, self.SLOTS, self.DIM))

    def heads(self, t):
        return t.view(1, -1, self.HEADS, self.DIM).transpose(1, 2)

    def attend(self, x):
        q = self.heads(self.q(x))
        return torch.softmax(q @ self.keys.transpose(2, 3), -1) @ self.values

    @staticmethod
    def inputs(gen, call):
        return (torch.randn(1, 1, 8, generator=gen), torch.tensor([call % _KVCache.SLOTS]))


@case("cache_index_copy")
class CacheIndexCopy(_KVCache):
    """StaticCache's write: keys/values buffers updated with index_copy_ along the slot dim at a position tensor."""

    def forward(self, x, pos):
        self.keys.index_copy_(2, pos, self.heads(self.k(x)))
        self.values.index_copy_(2, pos, self.heads(self.v(x)))
        return self.attend(x)


@case("cache_index_put")
class CachePut(_KVCache):
    """cache[:, :, pos] = k (index_put with a non-leading index) and cache[0, :, pos, idx] (several indices with a gap)."""

    def forward(self, x, pos):
        self.keys[:, :, pos] = self.heads(self.k(x))
        v = self.heads(self.v(x))
        self.values[0, :, pos, torch.tensor([0, 2])] = v[0, :, :, :2].transpose(0, 1)
        self.values[0, :, pos, torch.tensor([1, 3])] = v[0, :, :, 2:].transpose(0, 1)
        return self.attend(x)


@case("cache_slice_write")
class CacheSliceWrite(_KVCache):
    """Writes at a position read from a tensor (item()): cache[:, :, p:p+1] = k (slice_scatter) and cache.select(2, p).copy_ (select_scatter)."""

    def forward(self, x, pos):
        p = pos.item()
        torch._check(p >= 0)
        torch._check(p < self.SLOTS)
        self.keys[:, :, p:p + 1] = self.heads(self.k(x))
        self.values.select(2, p).copy_(self.heads(self.v(x))[:, :, 0])
        return self.attend(x)


@case("cache_scatter")
class CacheScatter(_KVCache):
    """scatter_ along the sequence dim with the position broadcast over heads and head_dim."""

    def forward(self, x, pos):
        index = pos.view(1, 1, 1, 1).expand(1, self.HEADS, 1, self.DIM)
        self.keys.scatter_(2, index, self.heads(self.k(x)))
        self.values.scatter_(2, index, self.heads(self.v(x)))
        return self.attend(x)


@case("sliding_window")
class SlidingWindow(_KVCache):
    """A sliding-window cache: drop the oldest slot, append the new one (cat of a slice), copy_ into the buffer."""

    def forward(self, x, pos):
        self.keys.copy_(torch.cat([self.keys[:, :, 1:], self.heads(self.k(x))], 2))
        self.values.copy_(torch.cat([self.values[:, :, 1:], self.heads(self.v(x))], 2))
        return self.attend(x) + pos


def _mode(module):
    """The module in the mode its case asks for: eval, or train (TRAIN = True)."""
    return module.train() if getattr(module, "TRAIN", False) else module.eval()


def _np(t):
    return t.detach().cpu().contiguous().numpy().copy()


def _export_save(ep, pt2: Path):
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


def _state_of(module, args, names):
    """{target: tensor} of the buffers and user inputs a call may change."""
    buffers = dict(module.named_buffers())
    out = {}
    for name, fqn in names:
        out[fqn] = buffers[fqn] if fqn in buffers else args[name]
    return out


def make_state_case(name, out_dir: Path):
    cls = STATE_CASES[name]
    entries = {}
    for ir in IRS:
        torch.manual_seed(seed_of(name))
        module = _mode(cls())
        initial = {k: v.clone() for k, v in module.state_dict().items()}
        gen = torch.Generator().manual_seed(seed_of(name) + 1)
        calls = [cls.inputs(gen, c) for c in range(CALLS)]
        example = tuple(t.clone() for t in calls[0])
        ep = torch.export.export(module, example)
        if ir == "core":
            ep = ep.run_decompositions()
        sig = ep.graph_signature
        user_inputs = [s.arg.name for s in sig.input_specs if s.kind.name == "USER_INPUT"]
        # What the program updates: buffers and user inputs. The functional signature says it for
        # core IR; for the default IR, compare before and after an eager call.
        stem = f"{name}.{ir}"
        size = _export_save(ep, out_dir / f"{stem}.pt2")

        arrays = {}
        state_args = {}  # mutated user inputs carried from call to call, as torch does
        probe = _mode(cls())
        probe.load_state_dict(initial)
        probe_args = [t.clone() for t in calls[0]]
        before = [t.clone() for t in probe_args]
        weights_before = {k: v.detach().clone() for k, v in probe.state_dict().items()}
        with torch.no_grad():
            probe(*probe_args)
        mutated_inputs = [i for i, (a, b) in enumerate(zip(probe_args, before)) if not torch.equal(a, b)]
        mutated_weights = [k for k, v in probe.state_dict().items() if not torch.equal(v, weights_before[k])]
        parameters = dict(probe.named_parameters())
        targets = mutated_weights + [user_inputs[i] for i in mutated_inputs]

        module = _mode(cls())  # eager on its own copy: the program's weights share storage with the exported module
        module.load_state_dict(initial)
        exported = ep.module()
        for c in range(CALLS):
            args = [state_args.get(i, t.clone()) for i, t in enumerate(calls[c])]
            for i, t in enumerate(args):
                arrays[f"call{c}_input_{i}"] = _np(t)
            ep_args = [t.clone() for t in args]
            with torch.no_grad():
                outs = ms._flat_tensors(module(*args))
            for j, o in enumerate(outs):
                arrays[f"call{c}_output_{j}"] = _np(o)
            weights = module.state_dict()
            for w in mutated_weights:
                arrays[f"call{c}_state.{w}"] = _np(weights[w])
            for i in mutated_inputs:
                arrays[f"call{c}_state.{user_inputs[i]}"] = _np(args[i])
                state_args[i] = args[i]
            # The exported program must agree with eager on every call.
            with torch.no_grad():
                ep_outs = ms._flat_tensors(exported(*ep_args))
            for o, e in zip(ep_outs, outs):
                np.testing.assert_allclose(_np(o), _np(e), rtol=EXPORT_RTOL, atol=EXPORT_ATOL)
        ms._write_if_changed(out_dir / f"{stem}.io.npz", ms._npz_bytes(arrays))
        entries[stem] = {"file": f"{stem}.pt2", "io_file": f"{stem}.io.npz", "kind": "calls", "ir": ir,
                         "covers": cls.__doc__.strip(), "calls": CALLS, "user_inputs": user_inputs,
                         "state": {t: ("parameter" if t in parameters else "buffer" if t in mutated_weights else "user input")
                                   for t in targets},
                         "bytes": size}
        print(f"  {stem}: {size} bytes; state {targets}")
    return entries


class ConstantUpdate(nn.Module):
    """A lifted tensor constant (a plain tensor attribute) updated in place: no ONNX state, convert refuses it."""

    def __init__(self):
        super().__init__()
        self.c = torch.ones(3)

    def forward(self, x):
        self.c.add_(1)
        return x * self.c


def make_refused(out_dir: Path):
    """Default IR only: run_decompositions() itself refuses a mutated constant ("register it as buffer")."""
    entries = {}
    ep = torch.export.export(ConstantUpdate(), (torch.randn(3),))
    for ir in ("default",):
        stem = f"constant_update.{ir}"
        size = _export_save(ep, out_dir / f"{stem}.pt2")
        entries[stem] = {"file": f"{stem}.pt2", "kind": "refused", "ir": ir, "covers": ConstantUpdate.__doc__.strip(),
                         "exit_code": 4, "message": "updates tensor constant 'c'", "state": {"c": "tensor constant"},
                         "bytes": size}
        print(f"  {stem}: {size} bytes; refused")
    return entries


# ----------------------------------------------------------------------------------------------
# LLM decode loops
# ----------------------------------------------------------------------------------------------


def tiny_llm(family, sliding=False):
    import transformers as tf

    common = dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=64, tie_word_embeddings=True)
    if sliding:  # layer 0 full attention, layer 1 a window of 6 (the hybrid cache wraps around within 20 steps)
        common.update(use_sliding_window=True, sliding_window=6, max_window_layers=1)
    torch.manual_seed(seed_of(family))
    if family == "llama":
        model = tf.LlamaForCausalLM(tf.LlamaConfig(**common))
    else:
        model = tf.Qwen2ForCausalLM(tf.Qwen2Config(**common))
    model.eval()
    with torch.no_grad():  # random init is small; widen it so the logits are not all near zero
        for p in model.parameters():
            p.normal_(0, 0.3) if p.dim() > 1 else p.uniform_(0.8, 1.2)
    return model


def _static_wrapper(model):
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    model.generation_config.cache_implementation = "static"
    model.generation_config.cache_config = {"batch_size": 1, "max_cache_len": MAX_CACHE, "device": "cpu"}
    return TorchExportableModuleForDecoderOnlyLM(model)


class FlatDynamicCacheLM(nn.Module):
    """forward(input_ids, k0, v0, k1, v1, ...) -> (logits, k0', v0', ...): the DynamicCache passed in
    and returned as tensors, [1, kv_heads, past, head_dim] each."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, *past):
        from transformers import DynamicCache

        cache = DynamicCache(config=self.model.config)
        for layer in range(len(past) // 2):
            cache.update(past[2 * layer], past[2 * layer + 1], layer)
        out = self.model(input_ids=input_ids, past_key_values=cache, use_cache=True)
        flat = []
        for layer in cache.layers:
            flat += [layer.keys, layer.values]
        return (out.logits, *flat)


def _greedy(step_fn, prompt_steps):
    """Runs the loop: prompt_steps (a list of token lists fed one call each), then NEW_TOKENS greedy
    steps; step_fn(tokens) -> last position's logits. Returns (fed tokens per step, logits)."""
    fed, logits = [], []
    for tokens in prompt_steps:
        fed.append(tokens)
        logits.append(step_fn(tokens))
    for _ in range(NEW_TOKENS):
        nxt = [int(np.argmax(logits[-1]))]
        fed.append(nxt)
        logits.append(step_fn(nxt))
    return fed, np.stack(logits)


def make_decode(family, cache, out_dir: Path, irs=IRS):
    model = tiny_llm(family, sliding=cache == "sliding")
    entries = {}
    kv, hd = model.config.num_key_value_heads, model.config.hidden_size // model.config.num_attention_heads
    layers = model.config.num_hidden_layers
    if cache in ("static", "sliding"):
        wrapper = _static_wrapper(model)
        with torch.no_grad():
            ep = wrapper.export(torch.tensor([[1]]), cache_position=torch.tensor([0]))
        ref = _static_wrapper(model)  # a fresh cache for the eager reference

        def step(tokens, pos=[0]):
            with torch.no_grad():
                out = ref.model.forward(input_ids=torch.tensor([tokens]), cache_position=torch.tensor([pos[0]]))
            pos[0] += len(tokens)
            return _np(out[0, -1])

        fed, logits = _greedy(step, [[t] for t in PROMPT])
    else:
        flat = FlatDynamicCacheLM(model).eval()
        past = tuple(torch.randn(1, kv, 3, hd) for _ in range(2 * layers))
        seq, plen = Dim("seq", min=1, max=32), Dim("past", min=0, max=64)
        shapes = {"input_ids": {1: seq}, "past": tuple({2: plen} for _ in range(2 * layers))}
        with torch.no_grad():
            ep = torch.export.export(flat, (torch.tensor([[1, 2]]), *past), dynamic_shapes=shapes)
        state = [torch.zeros(1, kv, 0, hd) for _ in range(2 * layers)]

        def step(tokens):
            with torch.no_grad():
                out = flat(torch.tensor([tokens]), *state)
            state[:] = list(out[1:])
            return _np(out[0][0, -1])

        fed, logits = _greedy(step, [PROMPT])
    for ir in irs:
        prog = ep.run_decompositions() if ir == "core" else ep
        stem = f"{family}_{cache}.{ir}"
        size = _export_save(prog, out_dir / f"{stem}.pt2")
        arrays = {"prompt": np.array(PROMPT, dtype=np.int64), "logits": logits.astype(np.float32),
                  "tokens": np.array([t for step_tokens in fed for t in step_tokens], dtype=np.int64),
                  "step_lengths": np.array([len(t) for t in fed], dtype=np.int64)}
        ms._write_if_changed(out_dir / f"{stem}.decode.npz", ms._npz_bytes(arrays))
        kind = "decode_dynamic" if cache == "dynamic" else "decode_static"
        entries[stem] = {"file": f"{stem}.pt2", "io_file": f"{stem}.decode.npz", "kind": kind, "ir": ir,
                         "family": family, "layers": layers, "kv_heads": kv, "head_dim": hd,
                         "steps": len(fed), "bytes": size,
                         "decoder_layer": "LlamaDecoderLayer" if family == "llama" else "Qwen2DecoderLayer"}
        print(f"  {stem}: {size} bytes; {len(fed)} steps, tokens {arrays['tokens'].tolist()}")
    return entries


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "samples" / "state")
    ap.add_argument("--only", default="")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    manifest_path = args.out / "state_samples.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    for name in STATE_CASES:
        if not only or name in only:
            manifest.update(make_state_case(name, args.out))
    if not only or "constant_update" in only:
        manifest.update(make_refused(args.out))
    for family in ("llama", "qwen2"):
        for cache in ("static", "dynamic"):
            if not only or f"{family}_{cache}" in only:
                manifest.update(make_decode(family, cache, args.out))
    if not only or "qwen2_sliding" in only:  # transformers' hybrid cache: a static sliding-window layer
        manifest.update(make_decode("qwen2", "sliding", args.out, irs=("default",)))
    ms._write_if_changed(manifest_path, (json.dumps(dict(sorted(manifest.items())), indent=1) + "\n").encode())


if __name__ == "__main__":
    main()
