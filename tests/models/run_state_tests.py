#!/usr/bin/env python3
"""End-to-end tests of programs with state (run by ctest as the `state` test).

samples/state/ (scripts/make_state_samples.py) holds programs that update parameters, buffers and
user inputs (a training-mode BatchNorm's running statistics among them) and tiny LLM decoders with
a KV cache, each in the default and the core ATen IR. For every sample:

- calls samples: convert (opsets 18 and 23), check the model (onnx.checker full_check), that
  metadata `pkg.pt2onnx.state` pairs exactly the expected state inputs (parameter and buffer FQNs,
  user input names) with their outputs `<input>.new`, and that a parameter's or buffer's state
  input has an initializer of its name (its default). Then run three calls in onnxruntime, the first from the defaults, the
  next ones fed the previous state outputs through `pkg.pt2onnx.state`, and compare every output,
  the new state included, with eager torch's after each call (rtol 1e-4, atol 1e-5).
- decode samples: greedy decoding in onnxruntime from the committed prompt, at opsets 18 and 23,
  flat and with `--hiera <DecoderLayer>`: the StaticCache export (cache in buffers) fed back
  through `pkg.pt2onnx.state`, the DynamicCache one (cache as inputs and outputs, dynamic past
  length, the prompt in one step from an empty cache). At every step the chosen token must equal
  torch's and the logits match torch's (rtol 1e-4, atol 1e-5).
- inspect: `pt2onnx inspect` (text and --json) lists the same state for each of those samples.
- refusals: a tensor constant updated in place is refused with exit code 4, one stderr line
  naming it, and no output file; `inspect` marks that state refused and names the same refusal.

Needs numpy, onnx and onnxruntime (the test venv). One line per check, then `N passed, M failed`.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ort_compare import ATOL, RTOL, CheckFailed, run_checks  # noqa: E402

OPSETS = (18, 23)


def convert(exe, sample: Path, out: Path, opset, extra=()):
    r = subprocess.run([str(exe), str(sample), "-o", str(out), "--opset", str(opset), "-q", *extra],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise CheckFailed(f"pt2onnx exit {r.returncode}: {r.stderr.strip()}")
    return out


def load_checked(path: Path):
    import onnx

    model = onnx.load(str(path))
    onnx.checker.check_model(model, full_check=True)
    return model


def state_pairs(model):
    meta = {p.key: p.value for p in model.metadata_props}
    return json.loads(meta["pkg.pt2onnx.state"]) if "pkg.pt2onnx.state" in meta else {}


def session(path: Path):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    return ort.InferenceSession(str(path), sess_options=so, providers=["CPUExecutionProvider"])


def compare(name, actual, expected):
    """Max abs error; raises beyond rtol/atol or on any difference in a non-float output."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape or a.dtype != e.dtype:
        raise CheckFailed(f"{name}: {a.dtype}{a.shape}, expected {e.dtype}{e.shape}")
    if not np.issubdtype(e.dtype, np.floating):
        if (a != e).any():
            raise CheckFailed(f"{name}: {int((a != e).sum())} elements differ")
        return 0.0
    err = float(np.abs(a.astype(np.float64) - e.astype(np.float64)).max()) if e.size else 0.0
    if not np.allclose(a, e, rtol=RTOL, atol=ATOL):
        raise CheckFailed(f"{name}: max abs error {err:.3g} beyond rtol {RTOL} atol {ATOL}")
    return err


def check_state_metadata(model, expected_targets):
    pairs = state_pairs(model)
    if set(pairs) != set(expected_targets):
        raise CheckFailed(f"pkg.pt2onnx.state pairs {sorted(pairs)}, expected state {sorted(expected_targets)}")
    outputs = {o.name for o in model.graph.output}
    inputs = {i.name for i in model.graph.input}
    inits = {i.name for i in model.graph.initializer}
    for name, kind in expected_targets.items():
        if pairs[name] != name + ".new" or pairs[name] not in outputs or name not in inputs:
            raise CheckFailed(f"state {name} -> {pairs[name]} is not a graph input -> graph output `{name}.new`")
        if kind in ("buffer", "parameter") and name not in inits:
            raise CheckFailed(f"state {kind} {name} has no initializer (its default)")
    return pairs


def check_calls(exe, samples: Path, work: Path, stem, entry, opset):
    onnx_path = convert(exe, samples / entry["file"], work / f"{stem}.{opset}.onnx", opset)
    model = load_checked(onnx_path)
    pairs = check_state_metadata(model, entry["state"])
    sess = session(onnx_path)
    in_names = [i.name for i in model.graph.input]  # onnxruntime lists inputs with a default apart
    out_names = [o.name for o in sess.get_outputs()]
    user_inputs = entry["user_inputs"]
    state_out = {v: k for k, v in pairs.items()}
    with np.load(samples / entry["io_file"]) as z:
        io = {k: z[k] for k in z.files}
    carried = {}
    errors = []
    for c in range(entry["calls"]):
        feeds = {}
        for i, name in enumerate(user_inputs):
            feeds[name] = carried.get(name, io[f"call{c}_input_{i}"])
        for name in pairs:
            if name in carried:
                feeds[name] = carried[name]
        extra = set(feeds) - set(in_names)
        if extra:
            raise CheckFailed(f"graph has no inputs {sorted(extra)}")
        results = dict(zip(out_names, sess.run(None, feeds)))
        worst = 0.0
        user_outputs = [n for n in out_names if n not in state_out]
        expected_outputs = sorted(k for k in io if k.startswith(f"call{c}_output_"))
        if len(user_outputs) != len(expected_outputs):
            raise CheckFailed(f"{len(user_outputs)} user outputs, torch has {len(expected_outputs)}")
        for j, name in enumerate(user_outputs):
            worst = max(worst, compare(f"call {c + 1} output {name}", results[name], io[f"call{c}_output_{j}"]))
        for out, inp in state_out.items():
            worst = max(worst, compare(f"call {c + 1} state {out}", results[out], io[f"call{c}_state.{inp}"]))
            carried[inp] = results[out]
        errors.append(worst)
    return f"opset {opset}, state {sorted(pairs)}, max abs error after 1 call {errors[0]:.3g}, after 3 calls {max(errors):.3g}"


def check_decode(exe, samples: Path, work: Path, stem, entry, opset, hiera):
    extra = ("--hiera", entry["decoder_layer"]) if hiera else ()
    tag = f"{stem}.{opset}{'.hiera' if hiera else ''}"
    onnx_path = convert(exe, samples / entry["file"], work / f"{tag}.onnx", opset, extra)
    model = load_checked(onnx_path)
    if hiera and not any(f.name == entry["decoder_layer"] for f in model.functions):
        raise CheckFailed(f"no {entry['decoder_layer']} function with --hiera")
    pairs = state_pairs(model)
    sess = session(onnx_path)
    inputs = [i.name for i in sess.get_inputs()]
    outputs = [o.name for o in sess.get_outputs()]
    with np.load(samples / entry["io_file"]) as z:
        tokens, logits, lengths = z["tokens"], z["logits"], z["step_lengths"]
    layers, kv, hd = entry["layers"], entry["kv_heads"], entry["head_dim"]
    static = entry["kind"] == "decode_static"
    if static:
        if len(pairs) != 3 * layers:  # keys, values and the cumulative length of each layer
            raise CheckFailed(f"{len(pairs)} state pairs, expected {3 * layers}: {pairs}")
    else:
        past = inputs[1:]
        if pairs or len(past) != 2 * layers:
            raise CheckFailed(f"expected no state metadata and {2 * layers} cache inputs, got {pairs}, {past}")
        cache = {n: np.zeros((1, kv, 0, hd), np.float32) for n in past}
    prompt_steps = 4 if static else 1  # the prompt is fed a token a step (static) or at once (dynamic)
    carried, worst, offset, step_logits = {}, 0.0, 0, None
    for step, n in enumerate(lengths):
        if step < prompt_steps:
            step_tokens = tokens[offset:offset + n].tolist()
        else:  # greedy: onnxruntime's own choice, which must be torch's
            step_tokens = [int(np.argmax(step_logits))]
            if step_tokens != tokens[offset:offset + n].tolist():
                raise CheckFailed(f"step {step}: onnxruntime chose token {step_tokens[0]}, torch {int(tokens[offset])}")
        ids = np.array([step_tokens], dtype=np.int64)
        if static:
            feeds = {inputs[0]: ids, inputs[1]: np.array([offset], dtype=np.int64), **carried}
            res = dict(zip(outputs, sess.run(None, feeds)))
            carried = {i: res[o] for i, o in pairs.items()}
            step_logits = res[outputs[0]][0, -1]
        else:
            res = sess.run(None, {inputs[0]: ids, **cache})
            cache = dict(zip(past, res[1:]))
            step_logits = res[0][0, -1]
        worst = max(worst, compare(f"step {step} logits", step_logits, logits[step]))
        offset += n
    return (f"opset {opset}{' --hiera ' + entry['decoder_layer'] if hiera else ''}: {len(lengths)} steps "
            f"({len(lengths) - prompt_steps} greedy), tokens equal at every step, max logit error {worst:.3g}")


def check_inspect(exe, samples: Path, stem, entry):
    """`pt2onnx inspect` lists the same state (text and --json), refused kinds marked."""
    r = subprocess.run([str(exe), "inspect", str(samples / entry["file"]), "--json"], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise CheckFailed(f"inspect --json exit {r.returncode}: {r.stderr.strip()}")
    model = json.loads(r.stdout)["models"][0]
    state = model["state"]
    refused = entry["kind"] == "refused"
    expected = entry["state"]
    got = {s["target"]: s["kind"] for s in state}
    if got != expected or any(s["convertible"] == refused for s in state):
        raise CheckFailed(f"inspect state {state}, expected {expected}")
    messages = [r["message"] for r in model["refusals"]]
    if refused != any(entry.get("message", "") in m for m in messages) or (not refused and messages):
        raise CheckFailed(f"inspect refusals {messages}")
    text = subprocess.run([str(exe), "inspect", str(samples / entry["file"])], capture_output=True, text=True, timeout=120).stdout
    for target, kind in expected.items():
        if f"    {kind} {target}: " not in text:
            raise CheckFailed(f"inspect text has no line for {kind} {target}")
    return ", ".join(f"{s['kind']} {s['target']} ({s['how']})" for s in state)


def check_refused(exe, samples: Path, work: Path, stem, entry):
    """State ONNX cannot express: refused with the documented exit code, one line naming it, nothing written."""
    out = work / f"{stem}.onnx"
    r = subprocess.run([str(exe), str(samples / entry["file"]), "-o", str(out)], capture_output=True, text=True, timeout=120)
    lines = r.stderr.strip().splitlines()
    if r.returncode != entry["exit_code"] or len(lines) != 1 or entry["message"] not in lines[0] or out.exists():
        raise CheckFailed(f"exit {r.returncode}, stderr {r.stderr.strip()!r}, output written: {out.exists()}")
    return f"exit {r.returncode}: {lines[0]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pt2onnx", type=Path, required=True)
    ap.add_argument("--samples", type=Path, required=True, help="the samples/ folder")
    ap.add_argument("--only", default="", help="comma-separated stems")
    args = ap.parse_args()
    state_dir = args.samples / "state"
    manifest = json.loads((state_dir / "state_samples.json").read_text())
    only = set(filter(None, args.only.split(",")))
    work = Path(tempfile.mkdtemp(prefix="pt2onnx-state-"))
    checks = []
    for stem, entry in manifest.items():
        if only and stem not in only:
            continue
        if entry["kind"] in ("calls", "refused"):
            checks.append((f"{stem} inspect", lambda s=stem, e=entry: check_inspect(args.pt2onnx, state_dir, s, e)))
        if entry["kind"] == "refused":
            checks.append((f"{stem} refused", lambda s=stem, e=entry: check_refused(args.pt2onnx, state_dir, work, s, e)))
            continue
        for opset in OPSETS:
            if entry["kind"] == "calls":
                checks.append((f"{stem} opset {opset}",
                               lambda s=stem, e=entry, o=opset: check_calls(args.pt2onnx, state_dir, work, s, e, o)))
            else:
                for hiera in (False, True):
                    checks.append((f"{stem} opset {opset}{' hiera' if hiera else ''}",
                                   lambda s=stem, e=entry, o=opset, h=hiera: check_decode(args.pt2onnx, state_dir, work, s, e, o, h)))
    return run_checks(checks)


if __name__ == "__main__":
    sys.exit(main())
