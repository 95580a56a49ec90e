#!/usr/bin/env python3
"""End-to-end tests of `--hiera` (run by ctest as the `hiera` test).

For each case: convert a sample flat and with `--hiera TYPE...` (opset 18), then check the hiera
model with onnx.checker (full_check), that it has exactly the expected functions (one per distinct
body; the counts below were verified by hand on the samples), calls per function, that no function
is named like a standard ONNX op (TensorRT dispatches by op_type), that weights are not duplicated
(file size at most 1% over the flat one, the same initializers but for the flat model's constants,
which the functions keep as Constant nodes), and that onnxruntime gives the flat
model's outputs (both optimized) and torch's (the hiera model with graph optimizations off, as
written; rtol 1e-4, atol 1e-5 for both). Also: a type that matches nothing is a warning naming the types present (refused with --strict)
with exit code 2 and one stderr line listing the model's types.

Needs only numpy, onnx and onnxruntime (the test venv). Prints one line per check and a summary
`N passed, M failed`; exits 1 on failure.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ort_compare import CheckFailed, load_io, max_error, run_checks, run_ort  # noqa: E402

OPSET = 18
DOMAIN = "pt2onnx.hiera"

# sample, --hiera types, expected {function name: calls (in the main graph and in other functions)}
CASES = [
    # Both layers share one DecoderLayer function, whose body calls DecoderAttention once.
    ("decoder.default", ["DecoderAttention", "DecoderLayer"], {"DecoderAttention": 1, "DecoderLayer": 2}),
    ("decoder.core", ["DecoderAttention", "DecoderLayer"], {"DecoderAttention": 1, "DecoderLayer": 2}),
    ("decoder.default", ["__main__.DecoderAttention"], {"DecoderAttention": 2}),
    ("cnn.default", ["ConvBNReLU"], {"ConvBNReLU": 2}),
    ("cnn.core", ["ConvBNReLU"], {"ConvBNReLU": 2}),
    # samples/hiera (scripts/make_hiera_samples.py). Two levels: each Block holds two Scale modules
    # that differ only by their constant factor (0.5, 2.0): two Scale functions, one Block function.
    ("hiera/two_level.default", ["Scale", "Block"], {"Scale": 1, "Scale_1": 1, "Block": 2}),
    ("hiera/two_level.core", ["Scale", "Block"], {"Scale": 1, "Scale_1": 1, "Block": 2}),
    # Three identity BasicBlocks (8 and 16 channels: channel counts are in the weights, not the
    # body) share one function; the strided block with a downsample branch has its own.
    ("hiera/resnet.default", ["BasicBlock"], {"BasicBlock": 3, "BasicBlock_1": 1}),
    ("hiera/resnet.core", ["BasicBlock"], {"BasicBlock": 3, "BasicBlock_1": 1}),
    # Both encoder blocks of the ViT share one function (the batch size they compute is their own).
    ("hiera/vit.default", ["EncoderBlock"], {"EncoderBlock": 2}),
    ("hiera/vit.core", ["EncoderBlock"], {"EncoderBlock": 2}),
    # samples/zoo: real transformers models (tiny configs). Llama with its attention class named
    # qualified, nested in the decoder layer; BERT likewise; Whisper's encoder layers.
    ("zoo/zoo_llama.default", ["transformers.models.llama.modeling_llama.LlamaAttention", "LlamaDecoderLayer"],
     {"LlamaAttention": 1, "LlamaDecoderLayer": 2}),
    ("zoo/zoo_llama.core", ["transformers.models.llama.modeling_llama.LlamaAttention", "LlamaDecoderLayer"],
     {"LlamaAttention": 1, "LlamaDecoderLayer": 2}),
    ("zoo/zoo_bert.default", ["BertAttention", "BertLayer"], {"BertAttention": 1, "BertLayer": 2}),
    ("zoo/zoo_bert.core", ["BertAttention", "BertLayer"], {"BertAttention": 1, "BertLayer": 2}),
    ("zoo/zoo_whisper_encoder.default", ["WhisperEncoderLayer"], {"WhisperEncoderLayer": 2}),
    ("zoo/zoo_whisper_encoder.core", ["WhisperEncoderLayer"], {"WhisperEncoderLayer": 2}),
    # T5's first block alone computes the relative position bias (has_relative_attention_bias),
    # so the two blocks have different bodies.
    ("zoo/zoo_t5_encoder.default", ["T5Block"], {"T5Block": 1, "T5Block_1": 1}),
    ("zoo/zoo_t5_encoder.core", ["T5Block"], {"T5Block": 1, "T5Block_1": 1}),
    # Falcon (rotary, parallel attention and MLP) and a Mixtral-style sparse MoE (4 experts, top 2,
    # transformers' grouped_mm_fallback experts path): both decoder layers share one function.
    ("zoo/zoo_falcon.default", ["FalconDecoderLayer"], {"FalconDecoderLayer": 2}),
    ("zoo/zoo_falcon.core", ["FalconDecoderLayer"], {"FalconDecoderLayer": 2}),
    ("zoo/zoo_mixtral.default", ["MixtralDecoderLayer"], {"MixtralDecoderLayer": 2}),
    ("zoo/zoo_mixtral.core", ["MixtralDecoderLayer"], {"MixtralDecoderLayer": 2}),
]

# Samples outside the manifests (the clean test takes CASES only). A pt2e-quantized CNN: the
# quantize/dequantize nodes have torch's export Wrapper as their root frame, the model's nodes the
# model's class; either type folds the whole program into one call, and a Conv2d type nests in it.
QUANT_CASES = [
    ("quant/cnn_x86", ["CNN"], {"CNN": 1}),
    ("quant/cnn_x86", ["Wrapper", "Conv2d"], {"Wrapper": 1, "Conv2d": 2}),
]


def convert(exe, sample: Path, out: Path, types):
    cmd = [exe, str(sample), "-o", str(out), "--opset", str(OPSET), "-q"]
    for t in types:
        cmd += ["--hiera", t]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise CheckFailed(f"{' '.join(cmd[1:])}: exit {proc.returncode}: {proc.stderr.strip()}")


def check_same_initializers(model, flat_model):
    """Weights stay top-level initializers: the hiera model has the flat one's. The flat model
    also holds its constants as initializers (pt2onnx's last clean-up step), where the hiera
    model's function bodies keep them as Constant nodes (a function has no initializers): each
    such flat-only initializer must be the value of a Constant node of the hiera model. The flat
    model may also hold a weight transposed (its Transpose folded into it), where the hiera
    model's function reads the weight as torch holds it and keeps the Transpose: a permutation
    of the axes matches too."""
    import itertools
    import numpy as np
    from onnx import helper, numpy_helper
    def values(m, with_constants):
        out = [numpy_helper.to_array(t) for t in m.graph.initializer]
        for nodes in ([m.graph.node] + [f.node for f in m.functions]) if with_constants else []:
            for n in nodes:
                if n.op_type == "Constant" and n.attribute:
                    v = helper.get_attribute_value(n.attribute[0])
                    if hasattr(v, "dims"):
                        out.append(numpy_helper.to_array(v))
                    else:  # value_int(s) / value_float(s)
                        floats = isinstance(v, float) or (isinstance(v, list) and v and isinstance(v[0], float))
                        out.append(np.array(v, dtype=np.float32 if floats else np.int64))
        return out

    def found(want, pool):
        forms = [want.transpose(p) for p in itertools.permutations(range(want.ndim))] if want.ndim <= 4 else [want]
        return any(c.dtype == w.dtype and c.shape == w.shape and np.array_equal(c, w) for c in pool for w in forms)

    flat = {t.name: t for t in flat_model.graph.initializer}
    hiera = {t.name: t for t in model.graph.initializer}
    # Constants cloned for the main graph (name_copy...) are initializers there too: same values.
    flat_pool, hiera_pool = values(flat_model, False), values(model, True)
    for name in sorted(set(hiera) - set(flat)):
        if not found(numpy_helper.to_array(hiera[name]), flat_pool):
            raise CheckFailed(f"initializer {name} is not in the flat conversion")
    for name in sorted(set(flat) - set(hiera)):
        if not found(numpy_helper.to_array(flat[name]), hiera_pool):
            raise CheckFailed(f"flat initializer {name} is neither an initializer nor a Constant of the hiera model")


def count_calls(model):
    calls = {}
    for nodes in [model.graph.node] + [f.node for f in model.functions]:
        for n in nodes:
            if n.domain == DOMAIN:
                calls[n.op_type] = calls.get(n.op_type, 0) + 1
    return calls


def check_case(exe, samples: Path, work: Path, stem, types, expected):
    import onnx

    sample = samples / f"{stem}.pt2"
    flat, hiera = work / f"{stem.replace('/', '_')}.flat.onnx", work / f"{stem.replace('/', '_')}.hiera.onnx"
    convert(exe, sample, flat, [])
    convert(exe, sample, hiera, types)
    onnx.checker.check_model(str(hiera), full_check=True)
    model = onnx.load(str(hiera))
    flat_model = onnx.load(str(flat))
    names = [f.name for f in model.functions]
    calls = count_calls(model)
    if expected is not None and calls != expected:
        raise CheckFailed(f"function calls {calls}, expected {expected}")
    if expected is None and not names:
        raise CheckFailed("no function made")
    if len(set(names)) != len(names) or set(names) != set(calls):
        raise CheckFailed(f"functions {names} vs calls {calls}")
    standard = [n for n in names if onnx.defs.has(n)]
    if standard:
        raise CheckFailed(f"functions named like standard ONNX ops: {standard}")
    check_same_initializers(model, flat_model)
    flat_size, hiera_size = flat.stat().st_size, hiera.stat().st_size
    # Weights are never copied: at most 1% more than flat (shared bodies usually make it smaller).
    if hiera_size > 1.01 * flat_size:
        raise CheckFailed(f"size {hiera_size} vs flat {flat_size} (over 1% more)")
    err_flat = err_torch = 0.0
    sizes = 0
    for prefix in ("", "b2_"):  # the second batch size, where the sample is dynamic
        inputs, torch_outputs = load_io(samples / f"{stem}.io.npz", prefix)
        if not inputs:
            continue
        sizes += 1
        hiera_out = run_ort(hiera, inputs)
        err_flat = max(err_flat, max_error(hiera_out, run_ort(flat, inputs)))
        # Against torch, the ONNX as written: with optimizations on, a quantized sample runs
        # onnxruntime's integer kernels, whose numbers depend on the CPU (cnn_x86: 3e-8 on AVX-512
        # VNNI, 1.1e-2 on AVX2 alone), and the quant test bounds those apart.
        err_torch = max(err_torch, max_error(run_ort(hiera, inputs, optimize=False), torch_outputs))
    return (f"{len(names)} functions {names}, calls {calls}, main graph {len(flat_model.graph.node)} -> "
            f"{len(model.graph.node)} nodes, size {flat_size} -> {hiera_size} bytes, {sizes} input size(s), "
            f"max abs error vs flat {err_flat:.3g}, vs torch {err_torch:.3g}")


def check_unknown_type(exe, samples: Path, work: Path):
    # One policy for things that match nothing: a warning that names the types the model has, so
    # one option set serves a model family; --strict refuses it (exit 8) and writes nothing.
    out = work / "unknown.onnx"
    cmd = [exe, str(samples / "decoder.default.pt2"), "-o", str(out), "--hiera", "NoSuchModule"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    lines = proc.stderr.strip().splitlines()
    if (proc.returncode != 0 or len(lines) != 1 or not lines[0].startswith("pt2onnx: warning: --hiera NoSuchModule")
            or "__main__.DecoderLayer" not in lines[0] or not out.exists()):
        raise CheckFailed(f"exit {proc.returncode}, stderr {proc.stderr.strip()!r}, output written: {out.exists()}")
    out.unlink()
    strict = subprocess.run(cmd + ["--strict"], capture_output=True, text=True, timeout=300)
    strict_lines = strict.stderr.strip().splitlines()
    if (strict.returncode != 8 or len(strict_lines) != 1 or "--strict: --hiera NoSuchModule" not in strict_lines[0]
            or out.exists()):
        raise CheckFailed(f"--strict: exit {strict.returncode}, stderr {strict.stderr.strip()!r}, output left: {out.exists()}")
    return f"{lines[0]} | --strict: exit 8"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pt2onnx", required=True)
    parser.add_argument("--samples", required=True, type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pt2onnx-hiera-") as tmp:
        work = Path(tmp)
        checks = [(f"{stem} --hiera {' '.join(types)}", lambda s=stem, t=types, e=exp: check_case(
            args.pt2onnx, args.samples, work, s, t, e)) for stem, types, exp in CASES + QUANT_CASES]
        checks.append(("unknown type: warning, --strict refuses", lambda: check_unknown_type(args.pt2onnx, args.samples, work)))
        return run_checks(checks)


if __name__ == "__main__":
    sys.exit(main())
