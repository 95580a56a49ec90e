#!/usr/bin/env python3
"""Seed corpora for the libFuzzer harnesses, extracted from the committed samples (stdlib only).

    make_corpus.py --samples samples --out build-fuzz/corpus

writes OUT/<harness>/<sha1-prefix> files: archive (the smallest .pt2 files), program_json (model
JSONs), sym_expr (every symbolic expression string in them), pickle (data.pkl of every nested
torch.save zip), config (the sample configs) and onnx_text (their rule bodies).
"""
import argparse
import hashlib
import io
import json
import pathlib
import zipfile

MAX_ARCHIVE_BYTES = 64 * 1024  # libFuzzer mutates faster on small inputs
MAX_JSON_BYTES = 96 * 1024


def save(out, harness, data):
    if isinstance(data, str):
        data = data.encode()
    folder = out / harness
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


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
        if len(data) <= MAX_ARCHIVE_BYTES:
            save(args.out, "archive", data)
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                if name.endswith(".json") and ("models/" in name or name == "serialized_exported_program.json"):
                    text = z.read(name)
                    expressions(json.loads(text), exprs)
                    if len(text) <= MAX_JSON_BYTES:
                        save(args.out, "program_json", text)
                elif name.endswith(".pt"):
                    for pickle in pickles(z.read(name)):
                        save(args.out, "pickle", pickle)
    # The str() form, which torch wrote before srepr (the samples only hold srepr).
    exprs.update(["2*s0 + 1", "(s0//2)", "Max(1, s0 - 1)", "-s1 + Mod(s0, 3)*s2**2", "CeilDiv(s0, 4) - 1"])
    for expr in sorted(exprs):
        save(args.out, "sym_expr", expr)
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
