#!/usr/bin/env python3
"""Seed corpora for the libFuzzer harnesses, extracted from the committed samples (stdlib only).

    make_corpus.py --samples samples --out build-fuzz/corpus

writes OUT/<harness>/<sha1-prefix> files, each at most the harness's -max_len (MAX_BYTES):
archive (the smallest .pt2 files, as written and re-zipped with DEFLATE), program_json (model
JSONs), sym_expr (every symbolic expression string in them), pickle (data.pkl of every nested
torch.save zip), config (the sample configs and a few small ones) and onnx_text (their rule
bodies).
"""
import argparse
import hashlib
import io
import json
import pathlib
import zipfile

# The -max_len of each harness in scripts/fuzz.sh: a larger seed would only be cut short.
MAX_BYTES = {"sym_expr": 4096, "program_json": 16384, "pickle": 4096, "archive": 16384, "config": 8192,
             "onnx_text": 4096}
# Seeds beyond the samples' configs: the smallest documents of each shape, so that the config and
# ONNX-text harnesses start from more than the three sample configs.
CONFIG_SEEDS = [
    '{}',
    '{"opset": 18, "external_data": false, "hiera": ["Block"], "dim_names": {"s0": "batch"}}',
    '{"rules": [{"op": "mylib::twice", "inputs": ["x"], "function": '
    '["<domain: \\"my\\">", "Twice (x) => (y) {", "  y = Add(x, x)", "}"]}]}',
]
ONNX_TEXT_SEEDS = [
    '<domain: "my">\nTwice (x) => (y) {\n  y = Add(x, x)\n}\n',
    '<domain: "my", opset_import: ["" : 18]>\nScale <alpha> (x, w) => (y) {\n  t = MatMul(x, w)\n'
    '  a = Constant <value_float: float = @alpha> ()\n  y = Mul(t, a)\n}\n',
]


def save(out, harness, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_BYTES[harness]:
        return
    folder = out / harness
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def deflated(data):
    """The same zip with every entry DEFLATE-compressed, so that the archive harness reaches the
    inflater (torch writes STORED entries only)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as z, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as w:
        for info in z.infolist():
            w.writestr(info.filename, z.read(info))
    return out.getvalue()


def expressions(value, found):
    """Every expr_str of a JSON document (SymInt, SymBool and SymFloat expressions)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for key, item in v.items():
                if key == "expr_str" and isinstance(item, str):
                    found.add(item)
                else:
                    stack.append(item)
        elif isinstance(v, list):
            stack.extend(v)


def pickles(data):
    """data.pkl of a torch.save zip given as bytes, or nothing."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return [z.read(n) for n in z.namelist() if n.endswith("/data.pkl") or n == "data.pkl"]
    except zipfile.BadZipFile:
        return []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=pathlib.Path, required=True)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    exprs = set()
    for path in sorted(args.samples.rglob("*.pt2")):
        data = path.read_bytes()
        save(args.out, "archive", data)
        if len(data) <= MAX_BYTES["archive"]:  # one DEFLATE twin per STORED seed, not more
            save(args.out, "archive", deflated(data))
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                if name.endswith(".json") and ("models/" in name or name == "serialized_exported_program.json"):
                    text = z.read(name)
                    expressions(json.loads(text), exprs)
                    save(args.out, "program_json", text)
                elif name.endswith(".pt"):
                    for pickle in pickles(z.read(name)):
                        save(args.out, "pickle", pickle)
    # The str() form, which torch wrote before srepr (the samples only hold srepr).
    exprs.update(["2*s0 + 1", "(s0//2)", "Max(1, s0 - 1)", "-s1 + Mod(s0, 3)*s2**2", "CeilDiv(s0, 4) - 1"])
    for expr in sorted(exprs):
        save(args.out, "sym_expr", expr)
    for text in CONFIG_SEEDS:
        save(args.out, "config", text)
    for text in ONNX_TEXT_SEEDS:
        save(args.out, "onnx_text", text)
    for path in sorted(args.samples.rglob("*.config.json")):
        text = path.read_text()
        save(args.out, "config", text)
        for rule in json.loads(text).get("rules", []):
            body = rule.get("function")
            if body:
                save(args.out, "onnx_text", body if isinstance(body, str) else "\n".join(body) + "\n")
    for harness in sorted(p.name for p in args.out.iterdir()):
        print(f"{harness}: {len(list((args.out / harness).iterdir()))} seeds")


if __name__ == "__main__":
    main()
