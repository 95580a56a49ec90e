#!/usr/bin/env python3
"""Makes the sample .pt2 archives in samples/ with real torch (tooling only; pt2onnx never runs Python).

Every model is small, seeded and built by a `build_<model>()` function below. Each one is exported
with torch.export.export, saved with torch.export.save and described in samples/MANIFEST.json
(observed archive entries, graph signature names, op histogram, sha256 ...). Next to each archive,
`<stem>.io.npz` holds the inputs (`input_0`, ...) and torch eager outputs (`output_0`, ...); dynamic
samples also carry a second set at another batch size (`b2_input_0`, ..., `b2_output_0`, ...).

With the newest torch (2.15) every model is made in the default IR (`<model>.default.pt2`) and in
core ATen IR (`<model>.core.pt2`, from ep.run_decompositions()). With older torch versions the
models of OLD_TORCH_MODELS (an MLP, the conv/batch-norm/pool CNN and the dynamic-batch MLP) are made
in the default IR, named `<model>.default.torch<major>_<minor>.pt2`, so that each archive layout and
schema generation torch has written has real files (2.7 and 2.8 were made when only `mlp` was). Run it under each torch venv (scripts/make_samples.sh);
each run replaces its own entries of MANIFEST.json and keeps the others, then rewrites README.md.

Usage: python make_samples.py [--out samples] [--ops-out /tmp/sample_ops.txt] [--only mlp,cnn]
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import io
import json
import os
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SCRIPT = "scripts/make_samples.py"
NEWEST = (2, 15)  # the torch that makes the full set; older ones make OLD_TORCH_MODELS (default IR)
SEED = 20240601


# ----------------------------------------------------------------------------------------------
# Models
# ----------------------------------------------------------------------------------------------


class MLP(nn.Module):
    def __init__(self, d_in=16, d_hidden=32, d_out=8):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class ConvBNReLU(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, kernel_size=3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(c_out)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


class SmallCNN(nn.Module):
    """Conv/BN/ReLU stem, max pool, one residual block, global average pool, linear head.
    Returns two outputs (logits, pooled features) so multi-output graphs are covered."""

    def __init__(self, c_in=3, width=8, n_classes=10):
        super().__init__()
        self.stem = ConvBNReLU(c_in, width)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.block_conv1 = ConvBNReLU(width, width)
        self.block_conv2 = nn.Conv2d(width, width, kernel_size=3, padding=1)
        self.block_bn2 = nn.BatchNorm2d(width)
        self.block_relu = nn.ReLU()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(width, n_classes)

    def forward(self, x):
        x = self.pool(self.stem(x))
        y = self.block_bn2(self.block_conv2(self.block_conv1(x)))
        x = self.block_relu(x + y)
        feat = torch.flatten(self.gap(x), 1)
        return self.head(feat), feat


class ConvPool(nn.Module):
    """Conv, then pools called with their defaults left out (max_pool2d and avg_pool2d with no
    stride: the exporter writes stride=[], which torch 2.1 spells as_bools), adaptive pool, linear."""

    def __init__(self, c_in=3, width=16, n_classes=5):
        super().__init__()
        self.conv = nn.Conv2d(c_in, width, kernel_size=3, padding=1)
        self.head = nn.Linear(width * 4, n_classes)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.conv(x)), 2)
        x = F.avg_pool2d(x, 2)
        x = F.adaptive_avg_pool2d(x, 2)
        return self.head(torch.flatten(x, 1))


class SelfAttention(nn.Module):
    """Multi-head self-attention with separate q/k/v projections and an explicit boolean mask input."""

    def __init__(self, dim=32, n_heads=4):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = dim // n_heads
        self.q_proj = nn.Linear(dim, dim)
        self.k_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)
        self.out_proj = nn.Linear(dim, dim)

    def forward(self, x, mask):
        b, t, d = x.shape
        q = self.q_proj(x).reshape(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).reshape(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).reshape(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        o = o.transpose(1, 2).reshape(b, t, d)
        return self.out_proj(o)


class RMSNorm(nn.Module):
    """Hand-written RMSNorm (mean of squares, rsqrt, learned scale)."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    x1 = x[..., :half]
    x2 = x[..., half:]
    return torch.cat((-x2, x1), dim=-1)


class DecoderAttention(nn.Module):
    """Causal self-attention with rotary position embedding (cos/sin tables are buffers)."""

    def __init__(self, dim, n_heads, max_seq):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, self.head_dim, 2, dtype=torch.float32) / self.head_dim))
        pos = torch.arange(max_seq, dtype=torch.float32)
        freqs = torch.outer(pos, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("rope_cos", emb.cos())
        self.register_buffer("rope_sin", emb.sin())

    def forward(self, x):
        b, t, d = x.shape
        q = self.wq(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        cos = self.rope_cos[:t]
        sin = self.rope_sin[:t]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(o.transpose(1, 2).reshape(b, t, d))


class GatedMLP(nn.Module):
    """Llama-style MLP: down(silu(gate(x)) * up(x))."""

    def __init__(self, dim, hidden):
        super().__init__()
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class DecoderLayer(nn.Module):
    def __init__(self, dim, n_heads, hidden, max_seq):
        super().__init__()
        self.attn_norm = RMSNorm(dim)
        self.attn = DecoderAttention(dim, n_heads, max_seq)
        self.mlp_norm = RMSNorm(dim)
        self.mlp = GatedMLP(dim, hidden)

    def forward(self, x):
        x = x + self.attn(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))


class TinyDecoder(nn.Module):
    """Token embedding, 2 DecoderLayers, a GELU projection, final LayerNorm and LM head."""

    def __init__(self, vocab=64, dim=32, n_heads=4, hidden=64, n_layers=2, max_seq=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([DecoderLayer(dim, n_heads, hidden, max_seq) for _ in range(n_layers)])
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        x = F.gelu(self.proj(x))
        return self.lm_head(self.norm(x))


def _randomize_batchnorm(module, gen):
    """Give every BatchNorm non-trivial running stats and affine params (eval mode uses them)."""
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(n, generator=gen) * 0.1)


# Each builder returns a dict: module (eval mode), inputs (tuple), and for dynamic samples
# dynamic_shapes (for torch.export), dynamic_dims (for the manifest) and inputs_b2 (second batch).


def build_mlp():
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED + 1)
    return {"module": MLP().eval(), "inputs": (torch.randn(4, 16, generator=gen),)}


def build_mlp_dynamic():
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED + 2)
    # torch 2.1 has no Dim: _export says the same bounds as constraints.
    batch = torch.export.Dim("batch", min=1, max=64) if hasattr(torch.export, "Dim") else None
    return {
        "module": MLP().eval(),
        "inputs": (torch.randn(4, 16, generator=gen),),
        "inputs_b2": (torch.randn(7, 16, generator=gen),),
        "dynamic_shapes": {"x": {0: batch}},
        "dynamic_dims": {"x": {"0": {"name": "batch", "min": 1, "max": 64}}},
    }


def build_cnn():
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED + 3)
    m = SmallCNN()
    _randomize_batchnorm(m, gen)
    return {"module": m.eval(), "inputs": (torch.randn(2, 3, 16, 16, generator=gen),)}


def build_convpool():
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED + 6)
    return {"module": ConvPool().eval(), "inputs": (torch.randn(2, 3, 12, 12, generator=gen),)}


def build_attention():
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED + 4)
    t = 8
    mask = torch.tril(torch.ones(t, t, dtype=torch.bool))  # causal; no row fully masked
    return {"module": SelfAttention().eval(), "inputs": (torch.randn(2, t, 32, generator=gen), mask)}


def build_decoder():
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED + 5)
    m = TinyDecoder()
    tokens = torch.randint(0, 64, (2, 8), generator=gen, dtype=torch.int64)
    return {"module": m.eval(), "inputs": (tokens,)}


MODELS = {
    "mlp": build_mlp,
    "mlp_dynamic": build_mlp_dynamic,
    "cnn": build_cnn,
    "convpool": build_convpool,
    "attention": build_attention,
    "decoder": build_decoder,
}

# ----------------------------------------------------------------------------------------------
# Archive inspection
# ----------------------------------------------------------------------------------------------


def _model_json_entry(names):
    """The entry holding the serialized program: PT2 layout (models/<name>.json) or the old one."""
    for n in names:
        if n.endswith("/models/model.json") or n == "models/model.json":
            return n
    for n in names:
        parts = n.split("/")
        if len(parts) >= 2 and parts[-2] == "models" and n.endswith(".json"):
            return n
    for n in names:
        if n.endswith("serialized_exported_program.json"):
            return n
    return None


def _walk(obj, fn):
    fn(obj)
    if isinstance(obj, dict):
        for v in obj.values():
            _walk(v, fn)
    elif isinstance(obj, list):
        for v in obj:
            _walk(v, fn)


def inspect_archive(path: Path) -> dict:
    """What the archive actually holds: entries, sizes, schema version, JSON conventions, ops."""
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        names = [i.filename for i in infos]
        entries = [{"name": i.filename, "size": i.file_size, "compress_type": i.compress_type} for i in infos]
        mj = _model_json_entry(names)
        doc = json.loads(z.read(mj)) if mj else None
        weights_cfg = None
        for n in names:
            if n.endswith("weights_config.json") or n.endswith("model_weights_config.json"):
                weights_cfg = n
    out = {"entries": entries, "model_json": mj, "weights_config_json": weights_cfg}
    if doc is None:
        return out
    out["schema_version"] = doc.get("schema_version")
    nodes = doc["graph_module"]["graph"]["nodes"]
    hist = collections.Counter(n["target"] for n in nodes)
    out["op_histogram"] = dict(sorted(hist.items()))

    # Conventions the C++ reader must handle: do union objects have exactly one key (or also
    # "type"/"$type" markers)? do named arguments carry "kind"?
    union_keys = set()
    multi_key_unions = []
    kinds = set()
    named_args = 0

    def visit(o):
        nonlocal named_args
        if isinstance(o, dict) and "name" in o and "arg" in o:
            named_args += 1
            if "kind" in o:
                kinds.add(str(o["kind"]))
            a = o["arg"]
            if isinstance(a, dict):
                union_keys.update(a.keys())
        # Any object using the "as_*" union field names (arguments, outputs, sym ints ...).
        if isinstance(o, dict) and any(k.startswith("as_") for k in o) and len(o) != 1:
            multi_key_unions.append(sorted(o.keys()))

    _walk(doc, visit)
    out["named_arg_count"] = named_args
    out["named_arg_kinds"] = sorted(kinds)
    out["named_args_carry_kind"] = bool(kinds)
    out["argument_union_keys"] = sorted(union_keys)
    out["unions_single_key"] = not multi_key_unions
    if multi_key_unions:
        out["union_multi_key_examples"] = multi_key_unions[:3]
    return out


# ----------------------------------------------------------------------------------------------
# Making samples
# ----------------------------------------------------------------------------------------------


def _flat_tensors(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_flat_tensors(o))
        return res
    raise TypeError(f"unsupported output type {type(out)}")


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().contiguous().numpy().copy()


def _eager(module, inputs):
    with torch.no_grad():
        return [_np(t) for t in _flat_tensors(module(*inputs))]


def _write_if_changed(path: Path, data: bytes) -> bool:
    if path.exists() and path.read_bytes() == data:
        return False
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return True


def _zip_content(data: bytes):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return [(i.filename, z.read(i)) for i in z.infolist()]


def _npz_bytes(arrays: dict) -> bytes:
    # np.savez writes zip entries with a fixed timestamp, so equal arrays give equal bytes.
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _signature_names(ep):
    sig = ep.graph_signature
    if not hasattr(sig, "input_specs"):  # torch 2.1: user_inputs/user_outputs name lists
        return list(sig.user_inputs), list(sig.user_outputs)
    ins = [s.arg.name for s in sig.input_specs if s.kind.name == "USER_INPUT"]
    outs = [s.arg.name for s in sig.output_specs if s.kind.name == "USER_OUTPUT"]
    return ins, outs


def _layout_name(entries):
    names = [e["name"] for e in entries]
    if any(n.endswith("serialized_exported_program.json") for n in names):
        return "legacy (serialized_exported_program.json + serialized_state_dict.pt)"
    if any("/data/weights/" in n and n.endswith(".pt") for n in names):
        return "pt2 (models/*.json, pickled weights data/weights/*.pt)"
    if any("/data/weights/weight_" in n or "/data/weights/" in n for n in names):
        return "pt2 (models/*.json, raw weight blobs data/weights/weight_N + config)"
    return "unknown"


def archive_fields(info: dict, conventions: bool = True) -> dict:
    """The manifest fields that say how an archive is laid out, from inspect_archive(info)."""
    fields = {
        "archive_layout": _layout_name(info["entries"]),
        "archive_entries": info["entries"],
        "model_json_entry": info["model_json"],
        "weights_config_entry": info["weights_config_json"],
        "schema_version": info.get("schema_version"),
    }
    if conventions:
        fields["json_conventions"] = {key: info.get(key) for key in (
            "unions_single_key", "argument_union_keys", "named_args_carry_kind", "named_arg_kinds")}
    return fields


def make_into_manifest(out_dir: Path, header: dict, names, make_case, stems=None) -> list:
    """Makes each named case (make_case(name) -> its manifest entries) into out_dir/MANIFEST.json,
    keeping the entries of other cases; a failing case is reported and keeps its previous files and
    entries. With `stems` (a full run: every stem that should exist), the entries and files of
    cases that no longer exist are removed. Writes the manifest (sorted); returns the failed names."""
    man_path = out_dir / "MANIFEST.json"
    manifest = json.loads(man_path.read_text()) if man_path.exists() else {}
    manifest.setdefault("samples", {})
    manifest.update(header)
    failed = []
    for n in names:
        try:
            manifest["samples"].update(make_case(n))
        except Exception as e:  # report every failing case, keep going
            failed.append(n)
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            print(f"  FAILED    {n}: {type(e).__name__}: {first[:400]}", flush=True)
    if stems is not None:
        for st in [s for s in manifest["samples"] if s not in stems]:
            print(f"  dropping  manifest entry {st} (no such case)")
            del manifest["samples"][st]
        for f in sorted(out_dir.iterdir()):
            stem = f.name[:-len(".io.npz")] if f.name.endswith(".io.npz") else f.name[:-len(".pt2")]
            if f.name.endswith((".pt2", ".io.npz")) and stem not in stems:
                print(f"  removing  {f.name} (no such case)")
                f.unlink()
    manifest["samples"] = dict(sorted(manifest["samples"].items()))
    text = json.dumps(manifest, indent=2) + "\n"
    print(f"  {'written' if _write_if_changed(man_path, text.encode()) else 'unchanged':9s} {man_path.name}")
    return failed


def _stabilize_provenance(ep):
    """Node provenance (meta["from_node"], saved in the JSON) records graph ids that are Python
    object addresses (id(graph)), which change from run to run. Renumber them in order of first
    appearance so that saving the same program twice gives the same bytes. Metadata only."""
    ids = {}
    seen = set()

    def fix(src):
        if id(src) in seen:
            return
        seen.add(id(src))
        holder = getattr(src, "node_info", None) or src
        gid = getattr(holder, "graph_id", None)
        if isinstance(gid, int) and gid >= 0:
            try:
                holder.graph_id = ids.setdefault(gid, len(ids))
            except AttributeError:  # read-only in some torch version: leave it
                pass
        if hasattr(src, "_dict"):
            src._dict = None
        for parent in getattr(src, "from_node", None) or []:
            fix(parent)

    for node in ep.graph.nodes:
        for src in node.meta.get("from_node", None) or []:
            fix(src)


def _export(module, inputs, spec):
    """torch.export.export with the spec's dynamic dims; torch 2.1 says them as constraints
    (dynamic_dim(x, i) bounds) instead of dynamic_shapes."""
    import inspect as pyinspect

    if "dynamic_shapes" in pyinspect.signature(torch.export.export).parameters or not spec.get("dynamic_dims"):
        return torch.export.export(module, inputs, dynamic_shapes=spec.get("dynamic_shapes")) \
            if spec.get("dynamic_shapes") else torch.export.export(module, inputs)
    arg_names = list(spec["dynamic_shapes"].keys())
    constraints = []
    for arg_name, dims in spec["dynamic_dims"].items():
        x = inputs[arg_names.index(arg_name)]
        for axis, bounds in dims.items():
            d = torch.export.dynamic_dim(x, int(axis))
            constraints += [d >= bounds["min"], d <= bounds["max"]]
    return torch.export.export(module, inputs, constraints=constraints)


def make_one(model: str, ir: str, suffix: str, out_dir: Path):
    spec = MODELS[model]()
    module, inputs = spec["module"], spec["inputs"]
    ep = _export(module, inputs, spec)
    if ir == "core":
        ep = ep.run_decompositions()
    stem = f"{model}.{ir}{suffix}"
    pt2 = out_dir / f"{stem}.pt2"
    npz = out_dir / f"{stem}.io.npz"

    _stabilize_provenance(ep)
    # Save to a temp file first; only replace the committed file when the bytes differ. The temp
    # file has the final name because torch.export.save uses the file stem as the archive's folder.
    with tempfile.TemporaryDirectory() as td:
        tmp = Path(td) / pt2.name
        torch.export.save(ep, str(tmp))
        data = tmp.read_bytes()
    if pt2.exists() and _zip_content(pt2.read_bytes()) == _zip_content(data):
        changed_pt2 = False  # same entries and bytes; only zip timestamps (torch <= 2.7) differ
    else:
        changed_pt2 = _write_if_changed(pt2, data)

    arrays = {}
    for i, t in enumerate(inputs):
        arrays[f"input_{i}"] = _np(t)
    for i, o in enumerate(_eager(module, inputs)):
        arrays[f"output_{i}"] = o
    if "inputs_b2" in spec:
        for i, t in enumerate(spec["inputs_b2"]):
            arrays[f"b2_input_{i}"] = _np(t)
        for i, o in enumerate(_eager(module, spec["inputs_b2"])):
            arrays[f"b2_output_{i}"] = o
    # Sanity: the exported program itself must agree with eager on the inputs.
    with torch.no_grad():
        ep_out = [_np(t) for t in _flat_tensors(ep.module()(*inputs))]
    for i, o in enumerate(ep_out):
        np.testing.assert_allclose(o, arrays[f"output_{i}"], rtol=1e-5, atol=1e-6)
    changed_npz = _write_if_changed(npz, _npz_bytes(arrays))

    info = inspect_archive(pt2)
    user_in, user_out = _signature_names(ep)
    # Map the builder's dynamic dims (keyed by forward arg name) to the graph's user input names.
    dyn = {}
    if spec.get("dynamic_dims"):
        fwd_names = list(spec["dynamic_shapes"].keys())
        for arg_name, dims in spec["dynamic_dims"].items():
            dyn[user_in[fwd_names.index(arg_name)]] = dims
    # torch 2.1's RangeConstraint says min_val/max_val; later ones are sympy ranges (lower/upper).
    range_constraints = {str(k): [str(getattr(v, "lower", getattr(v, "min_val", None))),
                                  str(getattr(v, "upper", getattr(v, "max_val", None)))]
                         for k, v in ep.range_constraints.items()}

    entry = {
        "file": pt2.name,
        "io_file": npz.name,
        "model": model,
        "ir": ir,
        "torch_version": torch.__version__,
        **archive_fields(info),
        "made_by": {"script": SCRIPT, "function": MODELS[model].__name__,
                    "ir_step": "torch.export.export" + (" + run_decompositions()" if ir == "core" else "")},
        "user_inputs": user_in,
        "user_outputs": user_out,
        "input_shapes": {user_in[i]: list(arrays[f"input_{i}"].shape) for i in range(len(inputs))},
        "input_dtypes": {user_in[i]: str(arrays[f"input_{i}"].dtype) for i in range(len(inputs))},
        "output_count": len(ep_out),
        "dynamic_dims": dyn,
        "range_constraints": range_constraints,
        "has_second_batch": "inputs_b2" in spec,
        "sha256": hashlib.sha256(pt2.read_bytes()).hexdigest(),
        "bytes": pt2.stat().st_size,
        "op_histogram": info.get("op_histogram", {}),
    }
    state = "written" if (changed_pt2 or changed_npz) else "unchanged"
    print(f"  {state:9s} {pt2.name} ({entry['bytes']} bytes) + {npz.name}; "
          f"inputs {user_in} outputs {user_out}; {sum(entry['op_histogram'].values())} nodes")
    return stem, entry


def write_readme(out_dir: Path, manifest: dict):
    samples = manifest["samples"]
    stems = sorted(samples)
    all_ops = sorted({op for s in samples.values() for op in s["op_histogram"]})
    lines = [
        "# Sample archives",
        "",
        "Small, seeded PyTorch models exported with `torch.export.export` and saved with",
        "`torch.export.save`; used by `tests/models/run_model_tests.py` to check the converter",
        "end to end. Generated — do not edit by hand. Regenerate with `scripts/make_samples.sh`",
        "(runs `scripts/make_samples.py` under each pinned torch venv from `scripts/torch_venv.sh`).",
        "",
        "- `<model>.default.pt2`: default IR (`torch.export.export`), torch 2.15.",
        "- `<model>.core.pt2`: core ATen IR (`ep.run_decompositions()`), torch 2.15.",
        "- `mlp.default.torch2_8.pt2`, `mlp.default.torch2_7.pt2`: the same MLP saved by older torch",
        "  (2.8: PT2 layout with pickled weights; 2.7: legacy layout).",
        "- `<stem>.io.npz`: inputs `input_<i>` and torch eager outputs `output_<i>`; dynamic samples",
        "  also `b2_input_<i>`/`b2_output_<i>` at a second batch size.",
        "- `MANIFEST.json`: per sample the observed archive entries, schema version, graph signature",
        "  names, dynamic dims, sha256, size and op histogram.",
        "",
        "Models: `mlp` (Linear/ReLU/Linear), `mlp_dynamic` (same, batch dim dynamic 1..64), `cnn`",
        "(Conv/BatchNorm/ReLU/MaxPool, residual add, AdaptiveAvgPool, flatten, Linear; outputs logits",
        "and features), `attention` (q/k/v projections, heads, SDPA with a boolean mask input, out",
        "projection), `decoder` (Embedding, 2 `DecoderLayer`s with RMSNorm, rotary embedding and",
        "causal SDPA in `DecoderAttention`, SiLU-gated MLP; GELU projection, LayerNorm, LM head; int64",
        "token ids).",
        "",
        "| sample | torch | layout | bytes | inputs | outputs |",
        "|---|---|---|---|---|---|",
    ]
    for st in stems:
        s = samples[st]
        lines.append(f"| `{s['file']}` | {s['torch_version']} | {s['archive_layout']} | {s['bytes']} | "
                     f"{', '.join(s['user_inputs'])} | {', '.join(s['user_outputs'])} |")
    lines += ["", "## Ops per sample (node count)", ""]
    short = [st.replace(".default", ".d").replace(".core", ".c") for st in stems]
    lines.append("| op | " + " | ".join(short) + " |")
    lines.append("|---|" + "---|" * len(stems))
    for op in all_ops:
        cells = [str(samples[st]["op_histogram"].get(op, "")) for st in stems]
        lines.append(f"| `{op}` | " + " | ".join(cells) + " |")
    lines.append("")
    return _write_if_changed(out_dir / "README.md", "\n".join(lines).encode())


# What older torch versions make: a conv/pool model and a dynamic dim besides the plain MLP.
OLD_TORCH_MODELS = ("mlp", "cnn", "convpool", "mlp_dynamic")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "samples"))
    ap.add_argument("--ops-out", default="/tmp/sample_ops.txt",
                    help="where to write the op list of all samples (informational; '' to skip)")
    ap.add_argument("--only", default="", help="comma-separated model names (default: all for this torch)")
    args = ap.parse_args(argv)

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)

    ver = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    if ver >= NEWEST:
        plan = [(m, ir, "") for m in MODELS for ir in ("default", "core")]
    else:
        plan = [(m, "default", f".torch{ver[0]}_{ver[1]}") for m in OLD_TORCH_MODELS]
    if args.only:
        keep = set(args.only.split(","))
        plan = [p for p in plan if p[0] in keep]
    print(f"make_samples: torch {torch.__version__}, numpy {np.__version__}, writing {len(plan)} samples to {out_dir}")

    man_path = out_dir / "MANIFEST.json"
    manifest = json.loads(man_path.read_text()) if man_path.exists() else {}
    manifest.setdefault("samples", {})
    manifest["generator"] = SCRIPT
    manifest["tolerance"] = {"rtol": 1e-4, "atol": 1e-5}
    for model, ir, suffix in plan:
        stem, entry = make_one(model, ir, suffix, out_dir)
        manifest["samples"][stem] = entry
    manifest["samples"] = dict(sorted(manifest["samples"].items()))
    # Drop entries whose files are gone (e.g. a model renamed); keeps the manifest truthful.
    for st in [s for s, e in manifest["samples"].items() if not (out_dir / e["file"]).exists()]:
        print(f"  dropping manifest entry {st}: {manifest['samples'][st]['file']} missing")
        del manifest["samples"][st]
    text = json.dumps(manifest, indent=2, sort_keys=False) + "\n"
    print(f"  {'written' if _write_if_changed(man_path, text.encode()) else 'unchanged':9s} {man_path.name}")
    print(f"  {'written' if write_readme(out_dir, manifest) else 'unchanged':9s} README.md")

    if args.ops_out:
        union = collections.Counter()
        lines = []
        for st, e in manifest["samples"].items():
            lines.append(f"# {e['file']} (torch {e['torch_version']}, ir {e['ir']})")
            for op, n in e["op_histogram"].items():
                lines.append(f"{op}\t{n}")
                union[op] += n
        head = ["# union over all samples: op<TAB>total count"]
        head += [f"{op}\t{n}" for op, n in sorted(union.items())]
        Path(args.ops_out).write_text("\n".join(head + [""] + lines) + "\n")
        print(f"  written   {args.ops_out} ({len(union)} distinct ops)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
